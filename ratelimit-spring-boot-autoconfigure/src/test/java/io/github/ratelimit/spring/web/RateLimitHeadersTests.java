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
import io.github.ratelimit.spring.PolicyPlan;
import io.github.ratelimit.spring.RateLimitOutcome;
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
		HttpHeaders headers = new RateLimitHeaders(true, true).of(policy("hello").defaultPlan(), this.decision);
		assertThat(headers.toSingleValueMap()).containsOnly(
				entry("RateLimit-Policy", "\"hello-10s\";q=5;w=10, \"hello-1h\";q=100;w=3600"),
				entry("RateLimit", "\"hello-10s\";r=3;t=2"), entry("X-RateLimit-Limit", "5"),
				entry("X-RateLimit-Remaining", "3"), entry("X-RateLimit-Reset", "4"));
	}

	@Test
	void rateLimitShouldNameTheItemOfTheLimitThatBinds() {
		Decision hourly = new Decision(false, HUNDRED_PER_HOUR, 0, Duration.ofSeconds(36), Duration.ofHours(1),
				Duration.ofSeconds(36), true, List.of(HUNDRED_PER_HOUR));
		HttpHeaders headers = new RateLimitHeaders(true, false).of(policy("hello").defaultPlan(), hourly);
		assertThat(headers.getFirst("RateLimit")).isEqualTo("\"hello-1h\";r=0;t=36");
	}

	@Test
	void tShouldBeTheSecondsUntilTheNextPermitRoundedUp() {
		Decision decision = new Decision(true, FIVE_PER_TEN_SECONDS, 0, Duration.ZERO, Duration.ofSeconds(10),
				Duration.ofMillis(2001), true, List.of());
		HttpHeaders headers = new RateLimitHeaders(true, true).of(onlyFivePerTenSeconds("hello"), decision);
		assertThat(headers.getFirst("RateLimit")).isEqualTo("\"hello\";r=0;t=3");
		assertThat(headers.getFirst("X-RateLimit-Reset")).isEqualTo("10");
	}

	@Test
	void limitsSharingAPeriodShouldBeNamedByTheirWholeText() {
		PolicyDefinition twice = definition(new Policy("burst", Algorithm.TOKEN_BUCKET,
				List.of(Limit.parse("10/1m"), Limit.parse("20/1m"), Limit.parse("1000/1d"), Limit.parse("10/1m"))));
		Decision decision = new Decision(true, Limit.parse("20/1m"), 19, Duration.ZERO, Duration.ofSeconds(3),
				Duration.ofSeconds(3), true, List.of());
		HttpHeaders headers = new RateLimitHeaders(true, false).of(twice.defaultPlan(), decision);
		assertThat(headers.getFirst("RateLimit-Policy"))
			.isEqualTo("\"burst-10/1m\";q=10;w=60, \"burst-20/1m\";q=20;w=60, \"burst-1d\";q=1000;w=86400");
		assertThat(headers.getFirst("RateLimit")).isEqualTo("\"burst-20/1m\";r=19;t=3");
	}

	@Test
	void outcomeOfTheSharedLimitsShouldBeShown() {
		PolicyDefinition hello = policy("hello");
		HttpHeaders headers = new HttpHeaders();
		new RateLimitHeaders(true, true).write(
				new RateLimitOutcome(hello, hello.defaultPlan(), this.decision, RateLimitOutcome.Kind.ALLOWED, 1),
				headers::set);
		assertThat(headers.headerNames()).containsExactlyInAnyOrder("RateLimit-Policy", "RateLimit",
				"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset");
	}

	@Test
	void outcomeOfTheLocalFallbackShouldShowNoHeaders() {
		PolicyDefinition hello = policy("hello");
		HttpHeaders headers = new HttpHeaders();
		new RateLimitHeaders(true, true).write(
				new RateLimitOutcome(hello, hello.defaultPlan(), this.decision, RateLimitOutcome.Kind.FALLBACK, 1),
				headers::set);
		assertThat(headers.isEmpty()).isTrue();
	}

	@Test
	void outcomeOfAShadowPolicyShouldShowNoHeaders() {
		PolicyDefinition hello = policy("hello");
		PolicyDefinition shadow = PolicyDefinition.of(hello.defaultPlan().policy(), hello.defaultPlan().limiter(), "ip",
				RequestKeyResolvers.ip(),
				List.of(), List.of(), Set.of(), 1, FailureMode.OPEN, true);
		HttpHeaders headers = new HttpHeaders();
		new RateLimitHeaders(true, true).write(
				new RateLimitOutcome(shadow, shadow.defaultPlan(), this.decision, RateLimitOutcome.Kind.ALLOWED, 1),
				headers::set);
		assertThat(headers.isEmpty()).isTrue();
	}

	@Test
	void ietfShouldWriteOnlyIetfHeaders() {
		HttpHeaders headers = new RateLimitHeaders(true, false).of(policy("hello").defaultPlan(), this.decision);
		assertThat(headers.headerNames()).containsExactlyInAnyOrder("RateLimit-Policy", "RateLimit");
	}

	@Test
	void legacyShouldWriteOnlyLegacyHeaders() {
		HttpHeaders headers = new RateLimitHeaders(false, true).of(policy("hello").defaultPlan(), this.decision);
		assertThat(headers.headerNames()).containsExactlyInAnyOrder("X-RateLimit-Limit", "X-RateLimit-Remaining",
				"X-RateLimit-Reset");
	}

	@Test
	void noneShouldWriteNoHeaders() {
		assertThat(new RateLimitHeaders(false, false).of(policy("hello").defaultPlan(), this.decision).isEmpty())
			.isTrue();
	}

	@Test
	void policyNameShouldBeAStructuredFieldString() {
		HttpHeaders headers = new RateLimitHeaders(true, false).of(onlyFivePerTenSeconds("say \"hi\\\" é"),
				this.decision);
		assertThat(headers.getFirst("RateLimit")).isEqualTo("\"say \\\"hi\\\\\\\" ?\";r=3;t=2");
	}

	@Test
	void periodShorterThanASecondShouldBeAWindowOfOneSecond() {
		Limit tenPerHalfASecond = Limit.of(10, Duration.ofMillis(500));
		PolicyDefinition fast = definition(new Policy("fast", Algorithm.TOKEN_BUCKET, List.of(tenPerHalfASecond)));
		Decision decision = new Decision(true, tenPerHalfASecond, 9, Duration.ZERO, Duration.ofMillis(50),
				Duration.ofMillis(50), true, List.of());
		HttpHeaders headers = new RateLimitHeaders(true, false).of(fast.defaultPlan(), decision);
		assertThat(headers.getFirst("RateLimit-Policy")).isEqualTo("\"fast\";q=10;w=1");
	}

	@Test
	void writeShouldSetTheHeadersOnTheResponse() {
		MockHttpServletResponse response = new MockHttpServletResponse();
		response.setHeader("X-RateLimit-Remaining", "99");
		new RateLimitHeaders(false, true).write(policy("hello").defaultPlan(), this.decision,
				response::setHeader);
		assertThat(response.getHeaders("X-RateLimit-Remaining")).containsExactly("3");
	}

	private static PolicyPlan onlyFivePerTenSeconds(String name) {
		return definition(new Policy(name, Algorithm.TOKEN_BUCKET, List.of(FIVE_PER_TEN_SECONDS))).defaultPlan();
	}

	private static PolicyDefinition policy(String name) {
		return definition(new Policy(name, Algorithm.TOKEN_BUCKET, List.of(FIVE_PER_TEN_SECONDS, HUNDRED_PER_HOUR)));
	}

	private static PolicyDefinition definition(Policy policy) {
		return PolicyDefinition.of(policy, new InMemoryRateLimiterBackend().create(policy), "ip",
				RequestKeyResolvers.ip(), List.of(), List.of(), Set.of(), 1, FailureMode.OPEN, false);
	}

	private static Map.Entry<String, String> entry(String name, String value) {
		return Map.entry(name, value);
	}

}
