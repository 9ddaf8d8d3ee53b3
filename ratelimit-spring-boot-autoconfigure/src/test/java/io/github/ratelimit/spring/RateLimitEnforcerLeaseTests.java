package io.github.ratelimit.spring;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.core.Limit;
import io.github.ratelimit.core.Policy;
import io.github.ratelimit.core.lease.LeaseSettings;
import io.github.ratelimit.core.lease.LeasedRateLimiter;
import io.github.ratelimit.core.memory.InMemoryRateLimiterBackend;
import io.github.ratelimit.core.resilience.CircuitBreaker;
import io.github.ratelimit.core.resilience.DenyCache;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The enforcer with a leased policy: a lease in hand decides
 * before the deny cache and the circuit breaker, with no backend call; a renewal is an ordinary call, whose refusal
 * the deny cache remembers; every decision is recorded, a local one as allowed; and a local decision's
 * {@code remaining} is what this instance knows of.
 */
class RateLimitEnforcerLeaseTests {

	private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

	private final InMemoryRateLimiterBackend backend = new InMemoryRateLimiterBackend();

	private final List<RateLimitOutcome> outcomes = new ArrayList<>();

	private final List<Long> backendNanos = new ArrayList<>();

	private final CircuitBreaker breaker = new CircuitBreaker(50, Duration.ofSeconds(1), 10, Duration.ofSeconds(1),
			this.nanos::get);

	private final RateLimitEnforcer enforcer = new RateLimitEnforcer(List.of((outcome, nanos) -> {
		this.outcomes.add(outcome);
		this.backendNanos.add(nanos);
	}), this.backend, this.breaker, new DenyCache(100, Duration.ofSeconds(10)), 1);

	@Test
	void aLeaseInHandDecidesWithoutTheBreakerAndTheBreakerDecidesOnceItIsUsedUp() {
		PolicyDefinition policy = leased("hello", "100/1h", 10);
		assertThat(enforce(policy).kind()).isEqualTo(RateLimitOutcome.Kind.ALLOWED);
		openBreaker();
		for (int i = 0; i < 9; i++) {
			assertThat(enforce(policy).kind()).as("decision %d from the lease in hand", i)
				.isEqualTo(RateLimitOutcome.Kind.ALLOWED);
		}
		assertThat(enforce(policy).kind()).as("the lease is used up: the renewal meets the open breaker")
			.isEqualTo(RateLimitOutcome.Kind.FAILED_CLOSED);
		assertThat(this.outcomes).hasSize(11);
		assertThat(this.backendNanos.get(0)).as("the first decision renewed the lease").isNotNegative();
		assertThat(this.backendNanos.subList(1, 10)).as("local decisions make no backend call").containsOnly(-1L);
		assertThat(limiter(policy).stats().leaseHits()).isEqualTo(9);
		assertThat(limiter(policy).stats().renewals()).isEqualTo(1);
	}

	@Test
	void aRefusedRenewalIsRememberedByTheDenyCacheAsAnyRefusal() {
		PolicyDefinition policy = leased("hello", "10/1h", 5);
		for (int i = 0; i < 10; i++) {
			assertThat(enforce(policy).kind()).isEqualTo(RateLimitOutcome.Kind.ALLOWED);
		}
		assertThat(limiter(policy).stats().renewals()).as("two grants, and perhaps a renewal ahead refused")
			.isBetween(2L, 3L);
		assertThat(enforce(policy).kind()).isEqualTo(RateLimitOutcome.Kind.DENIED);
		long renewals = limiter(policy).stats().renewals();
		assertThat(renewals).as("a refused renewal: this request's, or the one ahead it waited for").isBetween(3L, 4L);
		for (int i = 0; i < 20; i++) {
			assertThat(enforce(policy).kind()).isEqualTo(RateLimitOutcome.Kind.DENIED);
		}
		assertThat(limiter(policy).stats().renewals()).as("refused again by the deny cache, without a call")
			.isEqualTo(renewals);
		assertThat(this.outcomes).hasSize(31);
		assertThat(this.outcomes.stream().filter(RateLimitOutcome::refused)).hasSize(21);
	}

	@Test
	void oneInstancesRemainingCountsDownAsInExactMode() {
		PolicyDefinition policy = leased("hello", "10/1h", 5);
		List<Long> remaining = new ArrayList<>();
		for (int i = 0; i < 10; i++) {
			remaining.add(enforce(policy).decision().remaining());
		}
		assertThat(remaining).containsExactly(9L, 8L, 7L, 6L, 5L, 4L, 3L, 2L, 1L, 0L);
	}

	@Test
	void aLocalDecisionsRemainingIsTheLeaseLeftPlusWhatTheSharedStateHadLeftAtTheLastGrant() {
		PolicyDefinition first = leased("hello", "10/1h", 5);
		PolicyDefinition second = leased("hello", "10/1h", 5);
		assertThat(enforce(first).decision().remaining()).as("4 left in the lease, 5 in the shared state").isEqualTo(9);
		assertThat(enforce(second).decision().remaining()).as("4 left in its lease, none in the shared state")
			.isEqualTo(4);
		RateLimitOutcome local = enforce(first);
		assertThat(local.kind()).isEqualTo(RateLimitOutcome.Kind.ALLOWED);
		assertThat(local.decision().remaining())
			.as("3 left in the lease, and the 5 the shared state had after this instance's grant: the other's "
					+ "lease since is unknown to it")
			.isEqualTo(8);
		assertThat(local.decision().resetAfter()).isPositive().isLessThanOrEqualTo(Duration.ofHours(1));
		assertThat(local.decision().retryAfter()).isZero();
	}

	private RateLimitOutcome enforce(PolicyDefinition policy) {
		return this.enforcer.enforceAsync(policy, policy.defaultPlan(), "client", 1).toCompletableFuture().orTimeout(10, TimeUnit.SECONDS)
			.join();
	}

	private void openBreaker() {
		for (int i = 0; i < 10; i++) {
			this.breaker.onFailure(this.breaker.tryCall(), new IllegalStateException("down"));
		}
		assertThat(this.breaker.isOpen()).isTrue();
	}

	private PolicyDefinition leased(String name, String limits, long batch) {
		Policy policy = new Policy(name, Algorithm.TOKEN_BUCKET, List.of(Limit.parse(limits)));
		LeasedRateLimiter limiter = new LeasedRateLimiter(this.backend.create(policy),
				new LeaseSettings(batch, false, Duration.ofHours(1)));
		return PolicyDefinition.of(policy, limiter, "ip", (request) -> null, List.of(), List.of(), Set.of(), 1,
				FailureMode.CLOSED, false);
	}

	private static LeasedRateLimiter limiter(PolicyDefinition policy) {
		return (LeasedRateLimiter) policy.defaultPlan().limiter();
	}

}
