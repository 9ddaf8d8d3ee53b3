package io.github.ratelimit.sample;

import java.util.Objects;
import java.util.UUID;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringApplication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * The policies of the shipped {@code application.yml}, as clients see them in the rate limit headers, and their
 * overrides on the command line.
 */
class SampleConfigurationTests {

	private static final String KEY_PREFIX = "sample-configuration-tests-" + UUID.randomUUID();

	@Test
	void shippedPoliciesAreHelloFivePerTenSecondsOrdersTenPerMinuteOnFreeAndHundredOnPro() {
		try (RunningSample sample = RunningSample.start("ratelimit.key-prefix=" + KEY_PREFIX)) {
			sample.client().get().uri("/api/hello").exchange()
				.expectStatus().isOk()
				.expectHeader().valueEquals("RateLimit-Policy", "\"hello\";q=5;w=10");
			sample.client().get().uri("/api/orders").header("X-Api-Key", "key-" + UUID.randomUUID()).exchange()
				.expectStatus().isOk()
				.expectHeader().valueEquals("RateLimit-Policy", "\"orders-free\";q=10;w=60");
			sample.client().get().uri("/api/orders").header("X-Api-Key", "pro-" + UUID.randomUUID()).exchange()
				.expectStatus().isOk()
				.expectHeader().valueEquals("RateLimit-Policy", "\"orders-pro\";q=100;w=60");
			sample.client().get().uri("/api/unlimited").exchange()
				.expectStatus().isOk()
				.expectHeader().doesNotExist("RateLimit-Policy");
		}
	}

	@Test
	void policyValuesCanBeOverriddenOnTheCommandLine() {
		try (RunningSample sample = RunningSample.start("ratelimit.key-prefix=" + KEY_PREFIX,
				"ratelimit.policies.hello.limits=100/1h", "ratelimit.policies.orders.plans.free.limits=3/1d,20/1h")) {
			sample.client().get().uri("/api/hello").exchange()
				.expectStatus().isOk()
				.expectHeader().valueEquals("RateLimit-Policy", "\"hello\";q=100;w=3600");
			sample.client().get().uri("/api/orders").header("X-Api-Key", "key-" + UUID.randomUUID()).exchange()
				.expectStatus().isOk()
				.expectHeader()
				.valueEquals("RateLimit-Policy", "\"orders-free-1d\";q=3;w=86400, \"orders-free-1h\";q=20;w=3600");
		}
	}

	@Test
	void brokenLimitStopsStartUpNamingTheProperty() {
		assertThatException()
			.isThrownBy(() -> SpringApplication.run(SampleApplication.class, RunningSample
				.arguments("ratelimit.key-prefix=" + KEY_PREFIX, "ratelimit.policies.hello.limits=lots")))
			.satisfies((failure) -> assertThat(messages(failure)).anyMatch(
					(message) -> message.contains("ratelimit.policies.hello.limits")));
	}

	private static Stream<String> messages(Throwable failure) {
		return Stream.iterate(failure, Objects::nonNull, Throwable::getCause).map(Throwable::getMessage)
			.filter(Objects::nonNull);
	}

}
