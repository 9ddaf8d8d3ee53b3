package io.github.ratelimit.classpath.webflux;

import io.github.ratelimit.classpath.ReactiveHelloController;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Import;

/**
 * A reactive (WebFlux) application that pulls in the starter.
 */
@SpringBootApplication(proxyBeanMethods = false)
@Import(ReactiveHelloController.class)
public class WebFluxApplication {

}
