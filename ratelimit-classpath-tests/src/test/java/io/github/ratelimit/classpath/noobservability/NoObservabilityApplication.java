package io.github.ratelimit.classpath.noobservability;

import io.github.ratelimit.classpath.HelloController;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Import;

/**
 * A servlet application without Actuator or Micrometer.
 */
@SpringBootApplication(proxyBeanMethods = false)
@Import(HelloController.class)
public class NoObservabilityApplication {

}
