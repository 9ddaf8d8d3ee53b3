package io.github.ratelimit.test;

import java.time.Duration;

import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.http.client.ReactorResourceFactory;

/**
 * Gives a WebFlux application started beside others in one JVM its own Reactor Netty event loops, as a separate server
 * has. With Reactor Netty's global resources (Spring Boot's default), closing one application disposes the event loops
 * every other one serves on. They are disposed after {@code spring.reactor.netty.shutdown-quiet-period}, as Spring
 * Boot's own resources are.
 */
@Configuration(proxyBeanMethods = false)
public class OwnReactorResources {

	@Bean
	ReactorResourceFactory reactorResourceFactory(Environment environment) {
		ReactorResourceFactory factory = new ReactorResourceFactory();
		factory.setUseGlobalResources(false);
		Binder.get(environment)
			.bind("spring.reactor.netty.shutdown-quiet-period", Duration.class)
			.ifBound(factory::setShutdownQuietPeriod);
		return factory;
	}

}
