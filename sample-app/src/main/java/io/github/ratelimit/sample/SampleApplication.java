package io.github.ratelimit.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A web application rate limited by the starter: configuration in {@code application.yml}, one annotated method.
 */
@SpringBootApplication
public class SampleApplication {

	/**
	 * Runs the sample.
	 * @param args Spring Boot's command line arguments ({@code --ratelimit.policies.hello.limits=100/1h}, ...)
	 */
	public static void main(String[] args) {
		SpringApplication.run(SampleApplication.class, args);
	}

}
