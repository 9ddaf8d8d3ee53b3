package io.github.ratelimit.spring.web;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.core.Limit;
import io.github.ratelimit.redis.RedisTime;
import io.github.ratelimit.test.StartedWindow;
import io.github.ratelimit.test.TestRedisProperties;
import io.github.ratelimit.test.WireResponse;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every rate limit response of the filter, read on the wire from a real server on Redis with both header styles,
 * whichever stack serves it: checked against {@link ResponseHeaderRules} for every algorithm, one- and multi-limit
 * policies, admitted and refused, and with exact values where the algorithm makes them known (a token bucket's
 * waits, a fixed window's single end). Each stack's subclass starts its application with policies {@code tb}
 * ({@code /filtered/tb}, {@code 2/1h}) and {@code orders} ({@code /api/orders}, {@code 3/1m,100/1d}). The limit of
 * two that every algorithm's policy here has is an hour's whose window began when the application started, so no
 * window ends between two of a test's requests.
 */
abstract class AbstractRateLimitResponsesTests {

	private static final List<String> ALGORITHMS = List.of("token-bucket", "gcra", "fixed-window", "sliding-window",
			"sliding-log");

	@DynamicPropertySource
	static void properties(DynamicPropertyRegistry registry) {
		TestRedisProperties.register(registry);
		String hour = StartedWindow.begunAt(RedisTime.testRedisMicros(), "2/1h").toString();
		for (String algorithm : ALGORITHMS) {
			policy(registry, "one-" + algorithm, algorithm, hour);
			// the 5 a minute never binds three requests, whether its window ends between them or not
			policy(registry, "multi-" + algorithm, algorithm, "5/1m," + hour);
		}
	}

	private static void policy(DynamicPropertyRegistry registry, String name, String algorithm, String limits) {
		registry.add("ratelimit.policies." + name + ".paths", () -> "/filtered/" + name);
		registry.add("ratelimit.policies." + name + ".limits", () -> limits);
		registry.add("ratelimit.policies." + name + ".algorithm", () -> algorithm);
	}

	@LocalServerPort
	int port;

	@Value("${ratelimit.policies.one-fixed-window.limits}")
	String hour;

	@Test
	void everyAlgorithmShouldSendHeadersThatKeepTheRules() {
		assertThat(ALGORITHMS).hasSameSizeAs(Algorithm.values());
		String hourItem = "-" + Limit.parse(this.hour).periodText();
		for (String algorithm : ALGORITHMS) {
			List<WireResponse> one = get("/filtered/one-" + algorithm, 3);
			assertThat(one).extracting(WireResponse::status).containsExactly(200, 200, 429);
			for (WireResponse response : one) {
				assertThat(ResponseHeaderRules.policyNames(response)).containsExactly("one-" + algorithm);
				assertThat(ResponseHeaderRules.limitName(response)).isEqualTo("one-" + algorithm);
			}
			assertThat(ResponseHeaderRules.problem(one.get(2))).containsEntry("policy", "one-" + algorithm)
				.containsEntry("violated-policies", List.of("one-" + algorithm));
			List<WireResponse> multi = get("/filtered/multi-" + algorithm, 3);
			assertThat(multi).extracting(WireResponse::status).containsExactly(200, 200, 429);
			for (WireResponse response : multi) {
				assertThat(ResponseHeaderRules.policyNames(response)).containsExactly("multi-" + algorithm + "-1m",
						"multi-" + algorithm + hourItem);
				assertThat(ResponseHeaderRules.limitName(response))
					.isEqualTo("multi-" + algorithm + hourItem);
			}
			assertThat(ResponseHeaderRules.problem(multi.get(2))).containsEntry("policy", "multi-" + algorithm)
				.containsEntry("violated-policies", List.of("multi-" + algorithm + hourItem));
		}
	}

	@Test
	void fixedWindowShouldSayItsWindowEndsForEveryWait() {
		for (String name : List.of("one-fixed-window", "multi-fixed-window")) {
			List<WireResponse> responses = get("/filtered/" + name, 3);
			for (WireResponse response : responses) {
				assertThat(response.value("RateLimit")).endsWith(";t=" + response.value("X-RateLimit-Reset"));
			}
			assertThat(responses.get(2).value("Retry-After")).isEqualTo(responses.get(2).value("X-RateLimit-Reset"));
		}
	}

	@Test
	void tokenBucketShouldSayWhenTheNextPermitComes() {
		List<WireResponse> responses = get("/filtered/tb", 3);
		assertThat(responses.get(0).headers()).containsSubsequence(Map.entry("RateLimit-Policy", "\"tb\";q=2;w=3600"),
				Map.entry("RateLimit", "\"tb\";r=1;t=1800"), Map.entry("X-RateLimit-Limit", "2"),
				Map.entry("X-RateLimit-Remaining", "1"), Map.entry("X-RateLimit-Reset", "1800"));
		assertThat(responses.get(1).value("RateLimit")).startsWith("\"tb\";r=0;t=");
		assertThat(responses.get(1).value("X-RateLimit-Reset")).isEqualTo("3600");
		WireResponse refused = responses.get(2);
		assertThat(refused.status()).isEqualTo(429);
		assertThat(refused.value("Retry-After")).isEqualTo("1800");
		assertThat(refused.value("RateLimit")).isEqualTo("\"tb\";r=0;t=1800");
		assertThat(refused.value("X-RateLimit-Reset")).isEqualTo("3600");
	}

	@Test
	void multiLimitRefusalShouldNameTheLimitThatRefused() throws IOException {
		List<WireResponse> responses = get("/api/orders", 4);
		assertThat(responses).extracting(WireResponse::status).containsExactly(200, 200, 200, 429);
		assertThat(responses.get(0).value("RateLimit")).isEqualTo("\"orders-1m\";r=2;t=20");
		WireResponse refused = responses.get(3);
		assertThat(refused.value("RateLimit-Policy")).isEqualTo("\"orders-1m\";q=3;w=60, \"orders-1d\";q=100;w=86400");
		assertThat(refused.value("RateLimit")).isEqualTo("\"orders-1m\";r=0;t=20");
		assertThat(refused.value("Retry-After")).isEqualTo("20");
		assertThat(refused.value("X-RateLimit-Limit")).isEqualTo("3");
		assertThat(refused.value("X-RateLimit-Remaining")).isEqualTo("0");
		assertThat(refused.value("X-RateLimit-Reset")).isEqualTo("60");
		assertThat(ResponseHeaderRules.problem(refused)).containsEntry("policy", "orders")
			.containsEntry("violated-policies", List.of("orders-1m"))
			.containsEntry("detail", "Rate limit policy 'orders' (3/1m) exceeded; retry in 20 s.")
			.containsEntry("instance", "/api/orders");
		assertDocumented(refused);
	}

	/**
	 * Checks what docs/responses.md shows of a multi-limit refusal against one as this stack sent it.
	 * @param refused the refusal
	 * @throws IOException on failure to read the page
	 */
	abstract void assertDocumented(WireResponse refused) throws IOException;

	List<WireResponse> get(String path, int times) {
		List<WireResponse> responses = new ArrayList<>();
		for (int i = 0; i < times; i++) {
			responses.add(ResponseHeaderRules.check(WireResponse.get(this.port, path)));
		}
		return responses;
	}

}
