package io.github.ratelimit.sample.webflux;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A reactive web application (Spring WebFlux on Reactor Netty) rate limited by the starter: configuration in
 * {@code application.yml}, one annotated method.
 */
@SpringBootApplication
public class SampleWebFluxApplication {

	/**
	 * Runs the sample.
	 * @param args Spring Boot's command line arguments ({@code --ratelimit.policies.hello.limits=100/1h}, ...)
	 */
	public static void main(String[] args) {
		SpringApplication.run(SampleWebFluxApplication.class, args);
	}

}
