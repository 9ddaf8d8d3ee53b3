package io.github.ratelimit.test;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.client.ReactorResourceFactory;

/**
 * Gives a WebFlux application started beside others in one JVM its own Reactor Netty event loops, as a separate server
 * has. With Reactor Netty's global resources (Spring Boot's default), closing one application disposes the event loops
 * every other one serves on.
 */
@Configuration(proxyBeanMethods = false)
public class OwnReactorResources {

	@Bean
	ReactorResourceFactory reactorResourceFactory() {
		ReactorResourceFactory factory = new ReactorResourceFactory();
		factory.setUseGlobalResources(false);
		return factory;
	}

}
