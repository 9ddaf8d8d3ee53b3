package io.github.ratelimit.sample.gateway;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A Spring Cloud Gateway (its WebFlux server, on Reactor Netty) in front of the sample app, rate limited by the
 * starter: routes and policies in {@code application.yml}, one plan resolver.
 */
@SpringBootApplication
public class SampleGatewayApplication {

	/**
	 * Runs the gateway.
	 * @param args Spring Boot's command line arguments ({@code --sample.upstream=http://localhost:8081}, ...)
	 */
	public static void main(String[] args) {
		SpringApplication.run(SampleGatewayApplication.class, args);
	}

}
