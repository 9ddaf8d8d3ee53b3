package io.github.ratelimit.spring;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Set;

import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.Limit;
import io.github.ratelimit.core.Policy;
import io.github.ratelimit.core.memory.InMemoryRateLimiterBackend;
import org.junit.jupiter.api.Test;

import org.springframework.http.HttpHeaders;
import org.springframework.http.ProblemDetail;
import org.springframework.web.ErrorResponseException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

/**
 * Tests for {@link RateLimitProblems}: the problem bodies and {@code Retry-After} of refusals, through the
 * exceptions that carry them.
 */
class RateLimitProblemsTests {

	private static final Limit PER_MINUTE = Limit.parse("10/1m");

	private static final Limit PER_DAY = Limit.parse("500/1d");

	private static final PolicyDefinition ORDERS = definition(
			new Policy("orders", Algorithm.TOKEN_BUCKET, List.of(PER_MINUTE, PER_DAY)));

	private static final URI INSTANCE = URI.create("/api/orders");

	@Test
	void refusalShouldNameTheItemsThatRefusedAndSayWhenToRetry() {
		Decision refused = new Decision(false, PER_DAY, 0, Duration.ofMillis(172_800_001), Duration.ofDays(1),
				Duration.ofMillis(172_800_001), true, List.of(PER_MINUTE, PER_DAY));
		ErrorResponseException refusal = outcome(refused, RateLimitOutcome.Kind.DENIED, 1).refusal(INSTANCE);
		assertThat(refusal.getHeaders().getFirst(HttpHeaders.RETRY_AFTER)).isEqualTo("172801");
		ProblemDetail problem = refusal.getBody();
		assertThat(problem.getStatus()).isEqualTo(429);
		assertThat(problem.getType()).hasToString(RateLimitProblems.QUOTA_EXCEEDED);
		assertThat(problem.getDetail()).isEqualTo("Rate limit policy 'orders' (500/1d) exceeded; retry in 172801 s.");
		assertThat(problem.getProperties()).containsEntry("policy", "orders")
			.containsEntry("violated-policies", List.of("orders-1m", "orders-1d"));
	}

	@Test
	void refusalOfLessThanASecondShouldNameItsWaitInMillisecondsAndRoundRetryAfterUp() {
		Decision refused = new Decision(false, PER_MINUTE, 0, Duration.ofNanos(149_000_001), Duration.ofSeconds(6),
				Duration.ofNanos(149_000_001), true, List.of(PER_MINUTE));
		ErrorResponseException refusal = outcome(refused, RateLimitOutcome.Kind.DENIED, 1).refusal(INSTANCE);
		assertThat(refusal.getHeaders().getFirst(HttpHeaders.RETRY_AFTER)).isEqualTo("1");
		assertThat(refusal.getBody().getDetail()).isEqualTo("Rate limit policy 'orders' (10/1m) exceeded; retry in "
				+ "150 ms.");
		assertThat(refusal.getMessage()).isEqualTo(refusal.getBody().getDetail());
		Decision almostASecond = new Decision(false, PER_MINUTE, 0, Duration.ofNanos(999_000_001),
				Duration.ofSeconds(6), Duration.ofNanos(999_000_001), true, List.of(PER_MINUTE));
		assertThat(outcome(almostASecond, RateLimitOutcome.Kind.DENIED, 1).refusal(INSTANCE).getBody().getDetail())
			.endsWith("retry in 1 s.");
		Decision aSecondAndMore = new Decision(false, PER_MINUTE, 0, Duration.ofMillis(1_001), Duration.ofSeconds(6),
				Duration.ofMillis(1_001), true, List.of(PER_MINUTE));
		assertThat(outcome(aSecondAndMore, RateLimitOutcome.Kind.DENIED, 1).refusal(INSTANCE).getBody().getDetail())
			.endsWith("retry in 2 s.");
	}

	@Test
	void requestThatCanNeverSucceedShouldSaySoAndGetNoRetryAfter() {
		Decision never = new Decision(false, PER_MINUTE, 10, PER_MINUTE.period(), Duration.ZERO, Duration.ZERO, false,
				List.of(PER_MINUTE));
		ErrorResponseException refusal = outcome(never, RateLimitOutcome.Kind.DENIED, 11).refusal(INSTANCE);
		assertThat(refusal.getHeaders().containsHeader(HttpHeaders.RETRY_AFTER)).isFalse();
		assertThat(refusal.getBody().getDetail()).isEqualTo("The request costs 11 permits, more than rate limit "
				+ "policy 'orders' ever allows (10/1m: at most 10 per 1m); retrying will not help.");
		assertThat(refusal.getBody().getProperties()).containsEntry("violated-policies", List.of("orders-1m"));
	}

	@Test
	void failClosedRefusalShouldNameEveryItemSinceNoneWasChecked() {
		Decision standIn = new Decision(false, PER_MINUTE, 0, Duration.ofMillis(400), Duration.ZERO,
				Duration.ofMillis(400), true, List.of());
		ErrorResponseException refusal = outcome(standIn, RateLimitOutcome.Kind.FAILED_CLOSED, 1).refusal(INSTANCE);
		assertThat(refusal.getStatusCode().value()).isEqualTo(503);
		assertThat(refusal.getHeaders().getFirst(HttpHeaders.RETRY_AFTER)).isEqualTo("1");
		assertThat(refusal.getBody().getType()).hasToString(RateLimitProblems.TEMPORARY_REDUCED_CAPACITY);
		assertThat(refusal.getBody().getProperties()).containsEntry("policy", "orders")
			.containsEntry("violated-policies", List.of("orders-1m", "orders-1d"));
	}

	@Test
	void refusalsOfAPlanShouldNameThePlanAndItsItems() {
		PolicyDefinition pro = definition(ORDERS.defaultPlan().policy().withPlan("pro", Algorithm.TOKEN_BUCKET,
				List.of(PER_MINUTE, PER_DAY)));
		Decision refused = new Decision(false, PER_MINUTE, 0, Duration.ofSeconds(6), Duration.ofMinutes(1),
				Duration.ofSeconds(6), true, List.of(PER_MINUTE));
		assertThat(new RateLimitOutcome(pro, pro.defaultPlan(), refused, RateLimitOutcome.Kind.DENIED, 1).refusal(INSTANCE)
			.getBody()
			.getProperties()).containsExactly(entry("policy", "orders"), entry("plan", "pro"),
					entry("violated-policies", List.of("orders-pro-1m")));
		assertThat(new RateLimitOutcome(pro, pro.defaultPlan(), refused, RateLimitOutcome.Kind.FAILED_CLOSED, 1).refusal(INSTANCE)
			.getBody()
			.getProperties()).containsExactly(entry("policy", "orders"), entry("plan", "pro"),
					entry("violated-policies", List.of("orders-pro-1m", "orders-pro-1d")));
	}

	@Test
	void refusalsOfAPolicyWithoutPlansShouldNameNoPlan() {
		Decision refused = new Decision(false, PER_MINUTE, 0, Duration.ofSeconds(6), Duration.ofMinutes(1),
				Duration.ofSeconds(6), true, List.of(PER_MINUTE));
		for (RateLimitOutcome.Kind kind : List.of(RateLimitOutcome.Kind.DENIED, RateLimitOutcome.Kind.FAILED_CLOSED)) {
			assertThat(outcome(refused, kind, 1).refusal(INSTANCE).getBody().getProperties())
				.doesNotContainKey("plan");
		}
	}

	@Test
	void localFallbackRefusalShouldNameTheItemsOfTheDividedLimitsPeriods() {
		Limit dividedPerDay = Limit.parse("250/1d");
		Decision divided = new Decision(false, dividedPerDay, 0, Duration.ofSeconds(300), Duration.ofDays(1),
				Duration.ofSeconds(300), true, List.of(dividedPerDay));
		ErrorResponseException refusal = outcome(divided, RateLimitOutcome.Kind.FALLBACK, 1).refusal(INSTANCE);
		assertThat(refusal.getBody().getProperties()).containsEntry("violated-policies", List.of("orders-1d"));
		assertThat(refusal.getHeaders().getFirst(HttpHeaders.RETRY_AFTER)).isEqualTo("300");
	}

	@Test
	void oneLimitPolicyShouldBeNamedByThePolicyAlone() {
		Limit hourly = Limit.parse("3/1h");
		PolicyDefinition quota = definition(new Policy("quota", Algorithm.GCRA, List.of(hourly)));
		Decision refused = new Decision(false, hourly, 0, Duration.ofSeconds(1200), Duration.ofHours(1),
				Duration.ofSeconds(1200), true, List.of(hourly));
		ProblemDetail problem = new RateLimitOutcome(quota, quota.defaultPlan(), refused, RateLimitOutcome.Kind.DENIED, 1).refusal(null)
			.getBody();
		assertThat(problem.getProperties()).containsEntry("violated-policies", List.of("quota"));
		assertThat(problem.getInstance()).isNull();
	}

	private static RateLimitOutcome outcome(Decision decision, RateLimitOutcome.Kind kind, long permits) {
		return new RateLimitOutcome(ORDERS, ORDERS.defaultPlan(), decision, kind, permits);
	}

	private static PolicyDefinition definition(Policy policy) {
		return PolicyDefinition.of(policy, new InMemoryRateLimiterBackend().create(policy), "ip",
				RequestKeyResolvers.ip(), List.of(), List.of(), Set.of(), 1, FailureMode.CLOSED, false);
	}

}
