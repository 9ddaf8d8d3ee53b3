package io.github.ratelimit.sample;

import java.util.List;
import java.util.UUID;

import io.github.ratelimit.core.Limit;
import io.github.ratelimit.spring.PolicyDefinition;
import io.github.ratelimit.spring.RateLimitRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.http.HttpStatus;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample's {@code /api/orders} is limited per API key, which nothing verifies before the limit: a client sending
 * a new key with every request is held by the per-IP policy {@code orders-ip} beside it.
 */
class RotatingApiKeyTests {

	private static final String KEY_PREFIX = "rotating-api-key-tests-" + UUID.randomUUID();

	@Test
	void shippedOrdersIpPolicyLimitsOrdersPerClientIpAboveTheProPlan() {
		try (RunningSample sample = RunningSample.start("ratelimit.key-prefix=" + KEY_PREFIX)) {
			PolicyDefinition ordersIp = sample.bean(RateLimitRegistry.class).find("orders-ip").orElseThrow();
			assertThat(ordersIp.defaultPlan().policy().limits()).containsExactly(Limit.parse("120/1m"));
			assertThat(ordersIp.keyStrategy()).isEqualTo("ip");
			assertThat(ordersIp.paths()).containsExactly("/api/orders");
		}
	}

	@Test
	void oneClientRotatingApiKeysIsRefusedAtItsIpLimit() {
		// a capacity over an hour, so that no permit comes back while the test runs
		try (RunningSample sample = RunningSample.start("ratelimit.key-prefix=" + KEY_PREFIX + "-rotating",
				"ratelimit.policies.orders-ip.limits=30/1h")) {
			for (int i = 0; i < 30; i++) {
				sample.client().get().uri("/api/orders").header("X-Api-Key", "key-" + UUID.randomUUID()).exchange()
					.expectStatus().isOk();
			}
			for (int i = 0; i < 5; i++) {
				sample.client().get().uri("/api/orders").header("X-Api-Key", "key-" + UUID.randomUUID()).exchange()
					.expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
					.expectHeader().valueEquals("RateLimit-Policy", "\"orders-ip\";q=30;w=3600")
					.expectBody()
					.jsonPath("$.policy").isEqualTo("orders-ip")
					.jsonPath("$['violated-policies']").isEqualTo(List.of("orders-ip"));
			}
		}
	}

}
