package io.github.ratelimit.spring;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.Limit;
import io.github.ratelimit.core.Policy;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.core.RateLimiterBackend;
import io.github.ratelimit.core.memory.InMemoryRateLimiterBackend;
import io.github.ratelimit.core.resilience.CircuitBreaker;
import io.github.ratelimit.core.resilience.DenyCache;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import org.springframework.dao.QueryTimeoutException;

import static io.github.ratelimit.test.Decisions.enforce;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the enforcer keeps in memory: the deny cache's entries, timed from the backend call's start, and the bounded
 * state of the {@code local} failure mode.
 */
class RateLimitEnforcerMemoryTests {

	private static final Policy POLICY = Policy.of("orders", Algorithm.TOKEN_BUCKET, "10/1m");

	/** The backend of {@link SlowRefusals}: its timeouts are backend failures. */
	private static final RateLimiterBackend SLOW = new RateLimiterBackend() {

		@Override
		public RateLimiter create(Policy policy) {
			throw new UnsupportedOperationException();
		}

		@Override
		public String name() {
			return "slow";
		}

		@Override
		public boolean isBackendFailure(Throwable error) {
			return error instanceof QueryTimeoutException;
		}

		@Override
		public boolean isTimeout(Throwable error) {
			return error instanceof QueryTimeoutException;
		}

	};

	private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

	@Test
	void aRefusalIsAnsweredFromTheDenyCacheOnlyUntilItsRetryTimeCountedFromTheCallsStart() {
		SlowRefusals backend = new SlowRefusals(Duration.ofMillis(300), Duration.ofMillis(500));
		RateLimitEnforcer enforcer = new RateLimitEnforcer(List.of(), SLOW, new CircuitBreaker(),
				new DenyCache(100, Duration.ofSeconds(1), this.nanos::get), 1);
		PolicyDefinition policy = definition(backend, FailureMode.OPEN);
		assertThat(enforce(enforcer, policy, "client", 1).decision().allowed()).isFalse();
		advance(Duration.ofMillis(199));
		assertThat(enforce(enforcer, policy, "client", 1).decision().retryAfter()).isEqualTo(Duration.ofMillis(1));
		assertThat(backend.calls).hasValue(1);
		advance(Duration.ofMillis(1));
		// 500 ms after the call started the backend may admit again, though its reply came 300 ms into them
		enforce(enforcer, policy, "client", 1);
		assertThat(backend.calls).hasValue(2);
	}

	@Test
	void theLocalFailureModeKeepsAtMostItsMaximumClients() {
		InMemoryRateLimiterBackend fallback = new InMemoryRateLimiterBackend(Clock.systemUTC(), "fallback", 1000);
		RateLimitEnforcer enforcer = new RateLimitEnforcer(List.of(), SLOW, new CircuitBreaker(), null,
				1, fallback);
		PolicyDefinition policy = definition(new SlowRefusals(Duration.ZERO, null), FailureMode.LOCAL);
		for (int i = 0; i < 100_000; i++) {
			assertThat(enforce(enforcer, policy, "rotated-" + i, 1).kind()).isEqualTo(RateLimitOutcome.Kind.FALLBACK);
		}
		assertThat(fallback.size()).isLessThanOrEqualTo(1000);
	}

	private void advance(Duration duration) {
		this.nanos.addAndGet(duration.toNanos());
	}

	private static PolicyDefinition definition(RateLimiter limiter, FailureMode failureMode) {
		return PolicyDefinition.of(POLICY, limiter, "ip", RequestKeyResolvers.ip(), List.of(), List.of(), Set.of(), 1,
				failureMode, false);
	}

	/**
	 * A backend whose every answer takes a while on the test's clock: a refusal with a retry-after, or (without one)
	 * a timeout.
	 */
	private final class SlowRefusals implements RateLimiter {

		private final AtomicInteger calls = new AtomicInteger();

		private final Duration latency;

		private final @Nullable Duration retryAfter;

		SlowRefusals(Duration latency, @Nullable Duration retryAfter) {
			this.latency = latency;
			this.retryAfter = retryAfter;
		}

		@Override
		public Policy policy() {
			return POLICY;
		}

		@Override
		public Decision tryAcquire(String key, long permits) {
			this.calls.incrementAndGet();
			advance(this.latency);
			if (this.retryAfter == null) {
				throw new QueryTimeoutException("Redis command timed out");
			}
			Limit limit = POLICY.limits().get(0);
			return new Decision(false, limit, 0, this.retryAfter, limit.period(), this.retryAfter, true, List.of(limit));
		}

		@Override
		public CompletionStage<Decision> tryAcquireAsync(String key, long permits) {
			return CompletableFuture.completedFuture(tryAcquire(key, permits));
		}

		@Override
		public Decision peek(String key) {
			throw new UnsupportedOperationException();
		}

		@Override
		public void reset(String key) {
			throw new UnsupportedOperationException();
		}

	}

}
