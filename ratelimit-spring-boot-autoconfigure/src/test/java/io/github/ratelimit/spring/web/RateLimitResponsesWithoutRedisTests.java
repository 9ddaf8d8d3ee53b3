package io.github.ratelimit.spring.web;

import java.util.ArrayList;
import java.util.List;

import io.github.ratelimit.test.RateLimitHeaderNames;
import io.github.ratelimit.test.TestRedis;
import io.github.ratelimit.test.WireResponse;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The responses of policies whose Redis cannot be reached (nothing listens on its port), read on the wire with both
 * header styles: a fail-closed policy's 503, and the local fallback's decisions, which carry no rate limit headers
 * on either path (its divided limits are not the shared ones), each checked against {@link ResponseHeaderRules}.
 */
@SpringBootTest(classes = ResponseTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "ratelimit.headers=both", "ratelimit.failure-mode=local", "ratelimit.fallback.instances=2",
				"spring.data.redis.connect-timeout=500ms", "ratelimit.policies.closed.paths=/filtered/closed",
				"ratelimit.policies.closed.limits=5/1m,2/1h", "ratelimit.policies.closed.failure-mode=closed",
				"ratelimit.policies.local.paths=/filtered/local", "ratelimit.policies.local.limits=4/1m,2/1h" })
class RateLimitResponsesWithoutRedisTests {

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
		responses.forEach(RateLimitResponsesWithoutRedisTests::assertNoRateLimitHeaders);
		WireResponse refused = responses.get(1);
		assertThat(refused.value("Retry-After")).isEqualTo("3600");
		assertThat(ResponseHeaderRules.problem(refused)).containsEntry("policy", "local")
			.containsEntry("violated-policies", List.of("local-1h"));
	}

	@Test
	void localFallbackOfAnAnnotationShouldSendWhatTheFilterSends() {
		List<WireResponse> responses = get("/annotated/fallback", 2);
		assertThat(responses).extracting(WireResponse::status).containsExactly(200, 429);
		responses.forEach(RateLimitResponsesWithoutRedisTests::assertNoRateLimitHeaders);
		WireResponse refused = responses.get(1);
		assertThat(refused.value("Retry-After")).isEqualTo("3600");
		assertThat(ResponseHeaderRules.problem(refused)).containsEntry("policy", "annotated-fallback")
			.containsEntry("violated-policies", List.of("annotated-fallback-1h"));
	}

	private List<WireResponse> get(String path, int times) {
		List<WireResponse> responses = new ArrayList<>();
		for (int i = 0; i < times; i++) {
			responses.add(ResponseHeaderRules.check(WireResponse.get(this.port, path)));
		}
		return responses;
	}

	private static void assertNoRateLimitHeaders(WireResponse response) {
		for (String header : RateLimitHeaderNames.ALL) {
			assertThat(response.values(header)).as("%s of %s", header, response).isEmpty();
		}
	}

}
