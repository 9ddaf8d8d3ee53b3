package io.github.ratelimit.classpath.jedis;

import io.github.ratelimit.classpath.HelloController;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Import;

/**
 * A servlet application whose Redis client is Jedis, without Reactor.
 */
@SpringBootApplication(proxyBeanMethods = false)
@Import({ HelloController.class, AsyncReportController.class })
public class JedisApplication {

}
