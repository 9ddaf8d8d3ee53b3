package io.github.ratelimit.spring.web;

import java.util.ArrayList;
import java.util.List;

import io.github.ratelimit.test.RateLimitHeaderNames;
import io.github.ratelimit.test.TestRedis;
import io.github.ratelimit.test.WireResponse;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The responses of filter policies whose Redis cannot be reached (nothing listens on its port), read on the wire with
 * both header styles, whichever stack serves them: a fail-closed policy's 503, and the local fallback's decisions,
 * which carry no rate limit headers (its divided limits are not the shared ones), each checked against
 * {@link ResponseHeaderRules}. Each stack's subclass starts its application with policies {@code closed}
 * ({@code /filtered/closed}, {@code 5/1m,2/1h}, fail-closed) and {@code local} ({@code /filtered/local},
 * {@code 4/1m,2/1h}), {@code ratelimit.failure-mode=local} and {@code ratelimit.fallback.instances=2}.
 */
abstract class AbstractRateLimitResponsesWithoutRedisTests {

	@DynamicPropertySource
	static void properties(DynamicPropertyRegistry registry) {
		int port = TestRedis.freePort();
		registry.add("spring.data.redis.host", () -> "127.0.0.1");
		registry.add("spring.data.redis.port", () -> port);
	}

	@LocalServerPort
	int port;

	@Test
	void failClosedShouldRefuseWith503NamingEveryLimit() {
		WireResponse refused = ResponseHeaderRules.check(WireResponse.get(this.port, "/filtered/closed"));
		assertThat(refused.status()).isEqualTo(503);
		assertThat(refused.value("Retry-After")).isEqualTo("1");
		assertNoRateLimitHeaders(refused);
		assertThat(ResponseHeaderRules.problem(refused)).containsEntry("policy", "closed")
			.containsEntry("violated-policies", List.of("closed-1m", "closed-1h"));
	}

	@Test
	void localFallbackOfTheFilterShouldSendNoRateLimitHeaders() {
		List<WireResponse> responses = get("/filtered/local", 2);
		assertThat(responses).extracting(WireResponse::status).containsExactly(200, 429);
		responses.forEach(AbstractRateLimitResponsesWithoutRedisTests::assertNoRateLimitHeaders);
		WireResponse refused = responses.get(1);
		assertThat(refused.value("Retry-After")).isEqualTo("3600");
		assertThat(ResponseHeaderRules.problem(refused)).containsEntry("policy", "local")
			.containsEntry("violated-policies", List.of("local-1h"));
	}

	List<WireResponse> get(String path, int times) {
		List<WireResponse> responses = new ArrayList<>();
		for (int i = 0; i < times; i++) {
			responses.add(ResponseHeaderRules.check(WireResponse.get(this.port, path)));
		}
		return responses;
	}

	static void assertNoRateLimitHeaders(WireResponse response) {
		for (String header : RateLimitHeaderNames.ALL) {
			assertThat(response.values(header)).as("%s of %s", header, response).isEmpty();
		}
	}

}
