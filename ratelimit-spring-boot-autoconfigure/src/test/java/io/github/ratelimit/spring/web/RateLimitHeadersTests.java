package io.github.ratelimit.spring.web;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.Limit;
import io.github.ratelimit.core.Policy;
import io.github.ratelimit.core.memory.InMemoryRateLimiterBackend;
import io.github.ratelimit.spring.FailureMode;
import io.github.ratelimit.spring.PolicyDefinition;
import io.github.ratelimit.spring.RequestKeyResolvers;
import org.junit.jupiter.api.Test;

import org.springframework.http.HttpHeaders;
import org.springframework.mock.web.MockHttpServletResponse;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link RateLimitHeaders}.
 */
class RateLimitHeadersTests {

	private static final Limit FIVE_PER_TEN_SECONDS = Limit.of(5, Duration.ofSeconds(10));

	private static final Limit HUNDRED_PER_HOUR = Limit.of(100, Duration.ofHours(1));

	private final Decision decision = new Decision(true, FIVE_PER_TEN_SECONDS, 3, Duration.ZERO,
			Duration.ofMillis(3500), Duration.ofMillis(1500), true, List.of());

	@Test
	void bothShouldWriteIetfAndLegacyHeaders() {
		HttpHeaders headers = new RateLimitHeaders(HeaderStyle.BOTH).of(policy("hello"), this.decision);
		assertThat(headers.toSingleValueMap()).containsOnly(
				entry("RateLimit-Policy", "\"hello\";q=5;w=10, \"hello\";q=100;w=3600"),
				entry("RateLimit", "\"hello\";r=3;t=4"), entry("X-RateLimit-Limit", "5"),
				entry("X-RateLimit-Remaining", "3"), entry("X-RateLimit-Reset", "4"));
	}

	@Test
	void ietfShouldWriteOnlyIetfHeaders() {
		HttpHeaders headers = new RateLimitHeaders(HeaderStyle.IETF).of(policy("hello"), this.decision);
		assertThat(headers.headerNames()).containsExactlyInAnyOrder("RateLimit-Policy", "RateLimit");
	}

	@Test
	void legacyShouldWriteOnlyLegacyHeaders() {
		HttpHeaders headers = new RateLimitHeaders(HeaderStyle.LEGACY).of(policy("hello"), this.decision);
		assertThat(headers.headerNames()).containsExactlyInAnyOrder("X-RateLimit-Limit", "X-RateLimit-Remaining",
				"X-RateLimit-Reset");
	}

	@Test
	void noneShouldWriteNoHeaders() {
		assertThat(new RateLimitHeaders(HeaderStyle.NONE).of(policy("hello"), this.decision).isEmpty()).isTrue();
	}

	@Test
	void policyNameShouldBeAStructuredFieldString() {
		HttpHeaders headers = new RateLimitHeaders(HeaderStyle.IETF).of(policy("say \"hi\\\" é"), this.decision);
		assertThat(headers.getFirst("RateLimit")).isEqualTo("\"say \\\"hi\\\\\\\" ?\";r=3;t=4");
	}

	@Test
	void periodShorterThanASecondShouldBeAWindowOfOneSecond() {
		PolicyDefinition fast = definition(new Policy("fast", Algorithm.TOKEN_BUCKET,
				List.of(Limit.of(10, Duration.ofMillis(500)))));
		HttpHeaders headers = new RateLimitHeaders(HeaderStyle.IETF).of(fast, this.decision);
		assertThat(headers.getFirst("RateLimit-Policy")).isEqualTo("\"fast\";q=10;w=1");
	}

	@Test
	void writeShouldSetTheHeadersOnTheResponse() {
		MockHttpServletResponse response = new MockHttpServletResponse();
		response.setHeader("X-RateLimit-Remaining", "99");
		new RateLimitHeaders(HeaderStyle.LEGACY).write(policy("hello"), this.decision, response::setHeader);
		assertThat(response.getHeaders("X-RateLimit-Remaining")).containsExactly("3");
	}

	private static PolicyDefinition policy(String name) {
		return definition(new Policy(name, Algorithm.TOKEN_BUCKET, List.of(FIVE_PER_TEN_SECONDS, HUNDRED_PER_HOUR)));
	}

	private static PolicyDefinition definition(Policy policy) {
		return new PolicyDefinition(policy, new InMemoryRateLimiterBackend().create(policy), "ip",
				RequestKeyResolvers.ip(), List.of(), List.of(), Set.of(), 1, FailureMode.OPEN, false);
	}

	private static Map.Entry<String, String> entry(String name, String value) {
		return Map.entry(name, value);
	}

}
