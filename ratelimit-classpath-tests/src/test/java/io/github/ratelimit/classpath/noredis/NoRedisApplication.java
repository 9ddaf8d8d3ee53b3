package io.github.ratelimit.classpath.noredis;

import io.github.ratelimit.classpath.HelloController;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Import;

/**
 * A servlet application without Spring Data Redis, limiting in memory.
 */
@SpringBootApplication(proxyBeanMethods = false)
@Import(HelloController.class)
public class NoRedisApplication {

}
