package io.github.ratelimit.classpath.jedis;

import io.github.ratelimit.classpath.HelloController;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Import;

/**
 * A servlet application whose Redis client is Jedis.
 */
@SpringBootApplication(proxyBeanMethods = false)
@Import(HelloController.class)
public class JedisApplication {

}
