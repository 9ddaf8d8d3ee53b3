package io.github.ratelimit.classpath.webfluxjedis;

import io.github.ratelimit.classpath.ReactiveHelloController;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Import;

/**
 * A reactive (WebFlux) application whose Redis client is Jedis.
 */
@SpringBootApplication(proxyBeanMethods = false)
@Import(ReactiveHelloController.class)
public class WebFluxJedisApplication {

}
