package io.github.ratelimit.sample;

import org.springframework.boot.SpringApplication;

/**
 * Runs the sample against a Testcontainers {@code redis:7} instead of the embedded default:
 * {@code ./mvnw -pl sample-app spring-boot:test-run} (needs a Docker engine). The {@code testcontainers} profile
 * turns the embedded Redis off.
 */
public class TestSampleApplication {

	public static void main(String[] args) {
		SpringApplication.from(SampleApplication::main)
			.with(RedisContainerConfig.class)
			.withAdditionalProfiles("testcontainers")
			.run(args);
	}

}
