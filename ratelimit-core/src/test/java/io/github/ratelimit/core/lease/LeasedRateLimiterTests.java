package io.github.ratelimit.core.lease;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.Policy;
import io.github.ratelimit.core.memory.InMemoryRateLimiterBackend;
import io.github.ratelimit.test.Await;
import io.github.ratelimit.test.Hammer;
import io.github.ratelimit.test.ManualClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link LeasedRateLimiter} over the in-memory backend (real grants, real state), watched through
 * {@link WatchedRateLimiter}: what is decided locally, one renewal per key at a time, other keys never waiting, expiry,
 * a fixed window's permits given back, the adaptive batch, failures, the exact decision after three renewals and the
 * bound on keys.
 */
class LeasedRateLimiterTests {

	private static final Duration MAX_AGE = Duration.ofSeconds(1);

	/** Both the backend's clock and the leases' nano clock; starts on an hour, so hour-long windows stay whole. */
	private final ManualClock clock = new ManualClock(Instant.parse("2026-12-01T10:00:00Z"));

	private final LongSupplier nanos = () -> {
		Instant now = this.clock.instant();
		return now.getEpochSecond() * 1_000_000_000L + now.getNano();
	};

	private final InMemoryRateLimiterBackend backend = new InMemoryRateLimiterBackend(this.clock, "ratelimit");

	@Test
	void requestsTheLeaseCoversAreDecidedWithoutACall() {
		WatchedRateLimiter shared = watched(Algorithm.TOKEN_BUCKET, "100/1h");
		LeasedRateLimiter limiter = leased(shared, 10, false);
		Decision first = limiter.tryAcquire("k", 1);
		assertThat(first.allowed()).isTrue();
		assertThat(first.remaining()).isEqualTo(9 + 90);
		for (int i = 0; i < 9; i++) {
			Decision local = limiter.tryFromLease("k", 1);
			assertThat(local).isNotNull();
			assertThat(local.allowed()).isTrue();
			assertThat(local.remaining()).isEqualTo(8 - i + 90);
		}
		assertThat(limiter.tryFromLease("k", 1)).isNull();
		assertThat(shared.leaseCalls).hasValue(1);
		assertThat(shared.exactCalls).hasValue(0);
		assertThat(limiter.stats().leaseHits()).isEqualTo(9);
		assertThat(limiter.stats().waitedForRenewal()).as("the first request, which waited for the first lease")
			.isEqualTo(1);
		assertThat(limiter.stats().permitsLeased()).isEqualTo(10);
		assertThat(shared.peek("k").remaining()).isEqualTo(90);
	}

	/**
	 * A local decision's waits are the grant's less the time since it was asked for, and none once that time passed
	 * them.
	 */
	@Test
	void aLocalDecisionsWaitsAreTheGrantsLessTheTimeSinceAndNeverBelowZero() {
		LeasedRateLimiter window = leased(watched(Algorithm.FIXED_WINDOW, "10/1h"), 5, false);
		Decision granted = window.tryAcquire("k", 1);
		assertThat(granted.resetAfter()).isEqualTo(Duration.ofHours(1));
		this.clock.advance(Duration.ofMillis(300));
		Decision local = window.tryFromLease("k", 1);
		assertThat(local).isNotNull();
		assertThat(local.resetAfter()).isEqualTo(Duration.ofHours(1).minusMillis(300));
		assertThat(local.nextPermitAfter()).isEqualTo(max0(granted.nextPermitAfter().minusMillis(300)));
		assertThat(local.retryAfter()).isZero();
		LeasedRateLimiter bucket = leased(watched(Algorithm.TOKEN_BUCKET, "10/1s"), 5, false);
		Decision full = bucket.tryAcquire("b", 1);
		assertThat(full.resetAfter()).as("5 permits taken refill in half a second").isEqualTo(Duration.ofMillis(500));
		this.clock.advance(Duration.ofMillis(600));
		Decision later = bucket.tryFromLease("b", 1);
		assertThat(later).isNotNull();
		assertThat(later.resetAfter()).isZero();
		assertThat(later.nextPermitAfter()).isZero();
	}

	private static Duration max0(Duration duration) {
		return duration.isNegative() ? Duration.ZERO : duration;
	}

	@ParameterizedTest
	@EnumSource(names = { "TOKEN_BUCKET", "GCRA", "FIXED_WINDOW" })
	void manyThreadsOfOneKeyHaveOneRenewalInFlightAndAdmitWhatWasLeased(Algorithm algorithm) throws Exception {
		WatchedRateLimiter shared = watched(algorithm, "1000/1h");
		LeasedRateLimiter limiter = new LeasedRateLimiter(shared, new LeaseSettings(20, true, Duration.ofMinutes(5)));
		int admitted = Hammer.admitted(1, 32, 50, (instance) -> limiter.tryAcquire("hot", 1).allowed());
		// a renewal ahead of need, counted when started, may still be on its way (answered on another thread)
		Await.until(() -> !limiter.renewing("hot"));
		assertThat(shared.mostInFlightOfOneKey).hasValue(1);
		assertThat(admitted).isLessThanOrEqualTo(1000);
		LeaseStats stats = limiter.stats();
		assertThat(stats.permitsLeased() + stats.permitsAdmittedExactly())
			.isEqualTo(1000 - shared.peek("hot").remaining());
		assertThat(admitted - stats.permitsAdmittedExactly() + stats.permitsHeld() + stats.permitsExpired())
			.isEqualTo(stats.permitsLeased());
		assertThat(stats.renewals()).isEqualTo(shared.leaseCalls.get());
		assertThat(stats.decidedExactly()).as("only while the key's rate was not known").isEqualTo(shared.exactCalls.get())
			.isLessThanOrEqualTo(32);
		assertThat(admitted).isGreaterThanOrEqualTo(1000 - 20);
	}

	/**
	 * The lock-free take races with everything else a lease does: requests of one to three permits (so some span two
	 * parcels, on the locked path), leases renewing ahead, and parcels expiring after 5 ms (claimed by the
	 * locked path while other threads take from them). Every permit leased is admitted once, or expired or given back
	 * once the limiter is closed: none is handed out twice (the parcels would then hold more than the count of permits
	 * held says, and the count would not end at zero), none lost.
	 */
	@ParameterizedTest
	@EnumSource(names = { "TOKEN_BUCKET", "FIXED_WINDOW" })
	void permitsTakenWithoutALockAreHandedOutOnceWhileParcelsExpireAndRenew(Algorithm algorithm) throws Exception {
		WatchedRateLimiter shared = new WatchedRateLimiter(
				new InMemoryRateLimiterBackend().create(Policy.of("racing", algorithm, "100000000/1000d")));
		LeasedRateLimiter limiter = new LeasedRateLimiter(shared, new LeaseSettings(50, false, Duration.ofMillis(5)));
		int admitted = Hammer.admitted(1, 8, (instance) -> {
			int permits = 0;
			for (int i = 0; i < 2000; i++) {
				int cost = 1 + (i % 3);
				Decision local = limiter.tryFromLease("hot", cost);
				Decision decision = (local != null) ? local : limiter.tryAcquire("hot", cost);
				assertThat(decision.allowed()).isTrue();
				permits += cost;
			}
			return permits;
		});
		assertThat(admitted).isEqualTo(8 * (666 * 6 + 3));
		LeaseStats stats = limiter.stats();
		assertThat(stats.permitsHeld()).isNotNegative();
		limiter.close();
		long leasedAdmitted = admitted - shared.exactPermits.get();
		Await.until(() -> leasedAdmitted + stats.permitsExpired() + stats.permitsReturned() == stats.permitsLeased());
		assertThat(stats.permitsHeld()).as("every parcel disposed of holds what the count of permits held says")
			.isZero();
		assertThat(stats.leaseHits()).as("most requests were decided from a lease in hand").isGreaterThan(8 * 2000 / 2);
	}

	@Test
	void aLeaseInHandIsTakenFromWithoutTakingItsLock() throws Exception {
		WatchedRateLimiter shared = watched(Algorithm.TOKEN_BUCKET, "100/1h");
		LeasedRateLimiter limiter = leased(shared, 10, false);
		assertThat(limiter.tryAcquire("k", 1).allowed()).isTrue();
		CompletableFuture<Void> release = new CompletableFuture<>();
		CompletableFuture<Void> holding = new CompletableFuture<>();
		Thread holder = new Thread(() -> {
			synchronized (limiter.monitorOf("k")) {
				holding.complete(null);
				release.join();
			}
		});
		holder.start();
		try {
			holding.get(30, TimeUnit.SECONDS);
			CompletableFuture<Decision> local = CompletableFuture.supplyAsync(() -> limiter.tryFromLease("k", 1));
			assertThat(local.get(30, TimeUnit.SECONDS)).as("decided while another thread holds the lease's lock")
				.isNotNull()
				.satisfies((decision) -> assertThat(decision.allowed()).isTrue());
			assertThat(limiter.tryAcquireAsync("k", 2).toCompletableFuture().get(30, TimeUnit.SECONDS).allowed())
				.isTrue();
		}
		finally {
			release.complete(null);
			holder.join();
		}
		assertThat(limiter.stats().leaseHits()).isEqualTo(2);
	}

	@Test
	void otherKeysNeverWaitForAKeysSlowRenewal() throws Exception {
		WatchedRateLimiter shared = watched(Algorithm.TOKEN_BUCKET, "100/1h");
		LeasedRateLimiter limiter = leased(shared, 10, false);
		shared.hold("slow");
		CompletableFuture<Decision> slow = limiter.tryAcquireAsync("slow", 1).toCompletableFuture();
		CompletableFuture<Decision> slowToo = limiter.tryAcquireAsync("slow", 1).toCompletableFuture();
		CompletableFuture<Decision> fast = CompletableFuture.supplyAsync(() -> limiter.tryAcquire("fast", 1));
		assertThat(fast.get(30, TimeUnit.SECONDS).allowed()).isTrue();
		assertThat(limiter.tryAcquire("fast", 1).allowed()).isTrue();
		assertThat(slow).isNotDone();
		assertThat(slowToo).isNotDone();
		assertThat(shared.leaseCalls).hasValue(2);
		shared.release("slow");
		assertThat(slow.get(30, TimeUnit.SECONDS).allowed()).isTrue();
		assertThat(slowToo.get(30, TimeUnit.SECONDS).allowed()).isTrue();
		assertThat(shared.leaseCalls).hasValue(2);
	}

	@ParameterizedTest
	@EnumSource(names = { "TOKEN_BUCKET", "GCRA" })
	void aLeaseExpiresByMaxAgeAndItsUnusedPermitsAreCounted(Algorithm algorithm) {
		WatchedRateLimiter shared = watched(algorithm, "100/1h");
		LeasedRateLimiter limiter = leased(shared, 10, false);
		for (int i = 0; i < 3; i++) {
			assertThat(limiter.tryAcquire("k", 1).allowed()).isTrue();
		}
		this.clock.advance(MAX_AGE.minusNanos(1));
		assertThat(limiter.tryFromLease("k", 1)).isNotNull();
		this.clock.advance(Duration.ofNanos(1));
		assertThat(limiter.tryFromLease("k", 1)).isNull();
		assertThat(limiter.stats().permitsExpired()).isEqualTo(6);
		assertThat(limiter.stats().permitsHeld()).isZero();
		assertThat(limiter.stats().permitsReturned()).isZero();
		assertThat(shared.returnCalls).hasValue(0);
		assertThat(limiter.tryAcquire("k", 1).allowed()).isTrue();
		assertThat(shared.leaseCalls).hasValue(2);
	}

	@Test
	void aFixedWindowGivesUnusedPermitsBackWhenItsLeaseExpiresByAge() {
		WatchedRateLimiter shared = watched(Algorithm.FIXED_WINDOW, "100/1h");
		LeasedRateLimiter limiter = leased(shared, 10, false);
		for (int i = 0; i < 3; i++) {
			assertThat(limiter.tryAcquire("k", 1).allowed()).isTrue();
		}
		assertThat(shared.peek("k").remaining()).isEqualTo(90);
		this.clock.advance(MAX_AGE);
		assertThat(limiter.tryFromLease("k", 1)).isNull();
		Await.until(() -> limiter.stats().permitsReturned() == 7);
		assertThat(shared.peek("k").remaining()).isEqualTo(97);
		assertThat(limiter.stats().permitsExpired()).isZero();
	}

	@Test
	void aFixedWindowLeaseEndsWithItsWindowAndItsLeftoverIsLostToThatWindow() {
		WatchedRateLimiter shared = watched(Algorithm.FIXED_WINDOW, "100/1m");
		LeasedRateLimiter limiter = new LeasedRateLimiter(shared, new LeaseSettings(10, false, Duration.ofMinutes(5)),
				100, this.nanos);
		this.clock.advance(Duration.ofSeconds(59));
		assertThat(limiter.tryAcquire("k", 1).allowed()).isTrue();
		this.clock.advance(Duration.ofSeconds(1));
		assertThat(limiter.tryFromLease("k", 1)).isNull();
		assertThat(limiter.stats().permitsExpired()).isEqualTo(9);
		assertThat(shared.returnCalls).hasValue(0);
		assertThat(limiter.tryAcquire("k", 1).allowed()).isTrue();
		assertThat(shared.peek("k").remaining()).isEqualTo(90);
	}

	@Test
	void closeGivesBackEveryFixedWindowLeasesUnusedPermits() {
		WatchedRateLimiter shared = watched(Algorithm.FIXED_WINDOW, "100/1h");
		LeasedRateLimiter limiter = leased(shared, 10, false);
		assertThat(limiter.tryAcquire("a", 1).allowed()).isTrue();
		assertThat(limiter.tryAcquire("b", 3).allowed()).isTrue();
		limiter.close();
		assertThat(limiter.stats().permitsReturned()).isEqualTo(9 + 7);
		assertThat(limiter.stats().permitsHeld()).isZero();
		assertThat(limiter.stats().leasesHeld()).isZero();
		assertThat(shared.peek("a").remaining()).isEqualTo(99);
		assertThat(shared.peek("b").remaining()).isEqualTo(97);
		assertThat(limiter.tryAcquire("a", 1).allowed()).isTrue();
		assertThat(shared.exactCalls).hasValue(1);
	}

	@ParameterizedTest
	@EnumSource(names = { "TOKEN_BUCKET", "FIXED_WINDOW" })
	void leasesOfAtMostTheMaximumKeysAreKeptAndEvictedOnesAreDisposedOf(Algorithm algorithm) {
		WatchedRateLimiter shared = watched(algorithm, "100/1h");
		LeasedRateLimiter limiter = new LeasedRateLimiter(shared, new LeaseSettings(10, false, MAX_AGE), 50,
				this.nanos);
		int keys = 300;
		for (int i = 0; i < keys; i++) {
			assertThat(limiter.tryAcquire("client-" + i, 1).allowed()).isTrue();
		}
		Await.until(() -> limiter.stats().leasesHeld() <= 50);
		LeaseStats stats = limiter.stats();
		Await.until(() -> stats.permitsReturned() + stats.permitsExpired() + stats.permitsHeld() == keys * 9);
		assertThat(stats.permitsHeld()).isLessThanOrEqualTo(50 * 9);
		long taken = 0;
		for (int i = 0; i < keys; i++) {
			taken += 100 - shared.peek("client-" + i).remaining();
		}
		assertThat(taken).isEqualTo(keys * 10 - stats.permitsReturned());
		if (algorithm == Algorithm.FIXED_WINDOW) {
			assertThat(stats.permitsReturned()).isGreaterThanOrEqualTo((keys - 50) * 9);
		}
		else {
			assertThat(stats.permitsReturned()).isZero();
		}
	}

	@Test
	void theAdaptiveBatchGrowsWithTheKeysRateAndShrinksWhenItDrops() {
		WatchedRateLimiter shared = watched(Algorithm.TOKEN_BUCKET, "1000000/1h");
		LeasedRateLimiter limiter = leased(shared, 100, true);
		// 1 request a millisecond: half a 1 s max-age would use 500, so the batch reaches its cap of 100
		for (int i = 0; i < 1000; i++) {
			assertThat(limiter.tryAcquire("k", 1).allowed()).isTrue();
			this.clock.advance(Duration.ofMillis(1));
		}
		// the first request is decided exactly (no rate known yet: a lease would take 1), the second measures 1/ms
		// and takes the whole batch (a renewal ahead of need is answered on another thread: read once none is in flight)
		Await.until(() -> !limiter.renewing("k"));
		List<Long> fast = List.copyOf(shared.maximums);
		assertThat(shared.exactCalls).hasValue(1);
		assertThat(fast.get(0)).isEqualTo(100L);
		assertThat(fast.get(fast.size() - 1)).isEqualTo(100);
		assertThat(shared.leaseCalls.get()).isLessThan(30);
		// 1 request every 200 ms: half the max-age uses about 3
		int before = fast.size();
		for (int i = 0; i < 100; i++) {
			assertThat(limiter.tryAcquire("k", 1).allowed()).isTrue();
			this.clock.advance(Duration.ofMillis(200));
		}
		Await.until(() -> !limiter.renewing("k"));
		List<Long> all = List.copyOf(shared.maximums);
		List<Long> slow = new ArrayList<>(all.subList(before, all.size()));
		System.out.println("[lease-adaptive] batches while slow: " + slow);
		assertThat(slow.get(slow.size() - 1)).isBetween(2L, 4L);
		assertThat(slow).isSortedAccordingTo((a, b) -> Long.compare(b, a));
	}

	/**
	 * A key too cold for a lease to pay (an adaptive lease would take only the request's own permits) is decided
	 * exactly, one call and no lease bookkeeping, until its rate makes a lease cover more; it goes back to exact when
	 * its rate drops again. A fixed batch always leases.
	 */
	@Test
	void aColdKeyIsDecidedExactlyUntilItsRateMakesALeasePay() {
		WatchedRateLimiter shared = watched(Algorithm.TOKEN_BUCKET, "1000000/1h");
		LeasedRateLimiter limiter = leased(shared, 100, true);
		// one request a second: half the 1 s max-age would use 0.5 of a permit
		for (int i = 0; i < 10; i++) {
			assertThat(limiter.tryAcquire("cold", 1).allowed()).isTrue();
			this.clock.advance(Duration.ofSeconds(1));
		}
		assertThat(shared.leaseCalls).as("no lease for a key a lease would not pay for").hasValue(0);
		assertThat(shared.exactCalls).hasValue(10);
		assertThat(limiter.stats().decidedExactly()).isEqualTo(10);
		assertThat(limiter.stats().permitsAdmittedExactly()).isEqualTo(10);
		// warming up to one request every 10 ms: half the max-age uses 50
		for (int i = 0; i < 100; i++) {
			assertThat(limiter.tryAcquire("cold", 1).allowed()).isTrue();
			this.clock.advance(Duration.ofMillis(10));
		}
		Await.until(() -> !limiter.renewing("cold"));
		assertThat(shared.exactCalls).as("exact only until the rate was measured").hasValueLessThan(10 + 5);
		assertThat(shared.leaseCalls).hasValueBetween(1, 10);
		assertThat(limiter.stats().leaseHits()).isGreaterThan(80);
		// cooling down again: once its lease runs out, the key is decided exactly
		int leaseCalls = shared.leaseCalls.get();
		for (int i = 0; i < 20; i++) {
			limiter.tryAcquire("cold", 1);
			this.clock.advance(Duration.ofSeconds(2));
		}
		Await.until(() -> !limiter.renewing("cold"));
		assertThat(shared.leaseCalls.get()).as("the rate fell below what a lease pays for").isLessThan(leaseCalls + 5);
		// a fixed batch leases whatever the rate
		LeasedRateLimiter fixed = leased(shared, 100, false);
		assertThat(fixed.tryAcquire("fixed", 1).allowed()).isTrue();
		assertThat(fixed.stats().decidedExactly()).isZero();
		assertThat(fixed.stats().renewals()).isEqualTo(1);
	}

	@Test
	void aFailedRenewalFailsTheRequestAsTheDelegateWouldWhileTheLeaseInHandKeepsServing() {
		WatchedRateLimiter shared = watched(Algorithm.TOKEN_BUCKET, "100/1h");
		LeasedRateLimiter limiter = leased(shared, 10, false);
		assertThat(limiter.tryAcquire("k", 1).allowed()).isTrue();
		IllegalStateException down = new IllegalStateException("Redis is down");
		shared.failure.set(down);
		for (int i = 0; i < 9; i++) {
			assertThat(limiter.tryAcquire("k", 1).allowed()).isTrue();
		}
		assertThatThrownBy(() -> limiter.tryAcquire("k", 1)).isSameAs(down);
		CompletionStage<Decision> failed = limiter.tryAcquireAsync("k", 1);
		assertThatThrownBy(() -> failed.toCompletableFuture().join()).isInstanceOf(CompletionException.class)
			.hasCause(down);
		shared.failure.set(null);
		assertThat(limiter.tryAcquire("k", 1).allowed()).isTrue();
	}

	@Test
	void aRefusedRenewalAnswersWithTheSharedStatesRefusal() {
		WatchedRateLimiter shared = watched(Algorithm.TOKEN_BUCKET, "5/1h");
		LeasedRateLimiter limiter = leased(shared, 10, false);
		for (int i = 0; i < 5; i++) {
			assertThat(limiter.tryAcquire("k", 1).allowed()).isTrue();
		}
		assertThat(shared.maximums).containsExactly(5L);
		Decision refused = limiter.tryAcquire("k", 1);
		assertThat(refused.allowed()).isFalse();
		assertThat(refused.retryAfter()).isPositive();
		assertThat(refused).isEqualTo(shared.tryAcquire("k", 1));
		assertThat(limiter.tryAcquire("k", 6).satisfiable()).isFalse();
	}

	/**
	 * A key whose rate and renewal round trip are known (one permit a millisecond, 2 ms) renews when the permits in
	 * hand would last less than two round trips (4 permits), so that a steady stream of
	 * requests never finds the lease empty: without it each batch of 10 ends with a request that waits for a renewal.
	 */
	@Test
	void aLeaseBelowItsLowWaterMarkRenewsAheadSoNoRequestWaits() {
		WatchedRateLimiter shared = watched(Algorithm.TOKEN_BUCKET, "1000/1h");
		LeasedRateLimiter limiter = leased(shared, 10, false);
		LeaseCounters counters = (LeaseCounters) limiter.stats();
		learnRateAndRoundTrip(shared, limiter);
		for (int i = 0; i < 40; i++) {
			this.clock.advance(Duration.ofMillis(1));
			long aheadBefore = counters.renewedAhead.sum();
			assertThat(limiter.tryFromLease("k", 1)).as("request %d, from the lease in hand", i).isNotNull();
			if (counters.renewedAhead.sum() > aheadBefore) {
				// the renewal is answered on another thread; its grant comes before the permits left run out
				Await.until(() -> !limiter.renewing("k"));
			}
		}
		assertThat(counters.renewedAhead.sum()).as("renewals ahead").isBetween(3L, 5L);
		assertThat(shared.leaseCalls.get()).isEqualTo(2 + (int) counters.renewedAhead.sum());
		assertThat(shared.exactCalls).hasValue(0);
	}

	/**
	 * A renewal ahead of need is sent on the thread of the request that started it when the delegate does not block
	 * (as Lettuce's calls only send), sparing a hand-over to another thread per renewal, and on a renewals' thread
	 * when it blocks (Jedis), never on the request's, which waits for no I/O; either way the request is answered
	 * from the lease in hand and the grant comes before the permits run out.
	 */
	@ParameterizedTest
	@ValueSource(booleans = { false, true })
	void aRenewalAheadIsSentOnTheRequestsThreadUnlessTheDelegateBlocks(boolean blocks) {
		WatchedRateLimiter shared = watched(Algorithm.TOKEN_BUCKET, "1000/1h");
		shared.blocks = blocks;
		LeasedRateLimiter limiter = leased(shared, 10, false);
		assertThat(limiter.blocking()).isEqualTo(blocks);
		LeaseCounters counters = (LeaseCounters) limiter.stats();
		learnRateAndRoundTrip(shared, limiter);
		int calls = shared.leaseThreads.size();
		while (counters.renewedAhead.sum() == 0) {
			this.clock.advance(Duration.ofMillis(1));
			assertThat(limiter.tryFromLease("k", 1)).isNotNull();
		}
		Await.until(() -> !limiter.renewing("k"));
		assertThat(shared.leaseThreads).hasSize(calls + 1);
		String thread = shared.leaseThreads.get(calls);
		if (blocks) {
			assertThat(thread).startsWith("ratelimit-lease-renewals-");
		}
		else {
			assertThat(thread).isEqualTo(Thread.currentThread().getName());
		}
		assertThat(limiter.tryFromLease("k", 1)).as("served from the grant ahead").isNotNull();
	}

	/**
	 * A renewal ahead that the shared state refuses (the limit spent) starts none again until a grant comes: the
	 * permits in hand are handed out without a call each, and the request they do not cover renews as usual.
	 */
	@Test
	void aRefusedRenewalAheadIsNotRepeatedForEveryRequest() {
		// 22 an hour: 10, then 10, then the last 2 ahead, then a refusal ahead
		WatchedRateLimiter shared = watched(Algorithm.TOKEN_BUCKET, "22/1h");
		LeasedRateLimiter limiter = leased(shared, 10, false);
		LeaseCounters counters = (LeaseCounters) limiter.stats();
		learnRateAndRoundTrip(shared, limiter);
		int local = 0;
		for (int i = 0; i < 20; i++) {
			this.clock.advance(Duration.ofMillis(1));
			Decision decision = limiter.tryFromLease("k", 1);
			if (decision == null) {
				break;
			}
			local++;
			// a renewal ahead is answered on another thread: its answer is in before the next request
			Await.until(() -> !limiter.renewing("k"));
		}
		// 9 in hand after the second renewal served its request, and the last 2 granted ahead
		assertThat(local).isEqualTo(11);
		assertThat(counters.renewedAhead.sum()).as("one ahead granted, one refused").isEqualTo(2);
		assertThat(limiter.tryAcquire("k", 1).allowed()).isFalse();
		assertThat(shared.leaseCalls).hasValue(5);
	}

	/**
	 * Takes a first lease of 10, hands out 9 at one a millisecond, then renews for the 11th request with a grant that
	 * comes 2 ms after it was asked: the key's rate (1 a millisecond) and round trip (2 ms) are then known, and 9 of
	 * the second grant's 10 permits are in hand.
	 */
	private void learnRateAndRoundTrip(WatchedRateLimiter shared, LeasedRateLimiter limiter) {
		assertThat(limiter.tryAcquire("k", 1).allowed()).isTrue();
		for (int i = 0; i < 9; i++) {
			this.clock.advance(Duration.ofMillis(1));
			assertThat(limiter.tryFromLease("k", 1)).isNotNull();
		}
		this.clock.advance(Duration.ofMillis(1));
		shared.hold("k");
		CompletableFuture<Decision> renewing = limiter.tryAcquireAsync("k", 1).toCompletableFuture();
		this.clock.advance(Duration.ofMillis(2));
		shared.release("k");
		assertThat(renewing.join().allowed()).isTrue();
		assertThat(shared.leaseCalls).hasValue(2);
		assertThat(((LeaseCounters) limiter.stats()).renewedAhead.sum()).isZero();
	}

	@Test
	void aRequestStillWaitingAfterThreeRenewalsIsDecidedExactly() throws Exception {
		WatchedRateLimiter shared = watched(Algorithm.TOKEN_BUCKET, "100/1h");
		// batches of 1: each renewal serves the request at the head of the queue and no other
		LeasedRateLimiter limiter = leased(shared, 1, false);
		shared.hold("k");
		List<CompletableFuture<Decision>> queued = new ArrayList<>();
		for (int i = 0; i < 4; i++) {
			queued.add(limiter.tryAcquireAsync("k", 1).toCompletableFuture());
		}
		shared.release("k");
		for (CompletableFuture<Decision> request : queued) {
			assertThat(request.get(30, TimeUnit.SECONDS).allowed()).isTrue();
		}
		// the first three were served by one renewal each; the fourth, still waiting after the third, by the delegate
		assertThat(shared.leaseCalls).hasValue(3);
		assertThat(shared.exactCalls).hasValue(1);
		assertThat(limiter.stats().renewals()).isEqualTo(3);
		assertThat(queued.get(3).join().remaining()).isEqualTo(100 - 4);
	}

	/**
	 * A backend that answers on the calling thread (in-memory, Jedis) while requests of the key keep arriving during
	 * each renewal, one per round, as under many threads: the request that started the renewal makes one round and
	 * has its answer; the rounds after it follow one another in a loop on the renewals' threads. Nested (each round
	 * started from within the previous one's completion) they overflowed the stack of the thread that made the first
	 * call; {@code CompletableFuture} swallowed the {@link StackOverflowError}, the renewal stayed in flight for good
	 * and no request of the key was answered again. The first call is made on a thread with a small stack, so that
	 * nesting would overflow within a few hundred rounds.
	 */
	@Test
	void renewalsThatAnswerAtOnceFollowOneAnotherWithoutNestingOffTheThreadOfTheRequestThatStartedThem()
			throws Exception {
		WatchedRateLimiter shared = watched(Algorithm.TOKEN_BUCKET, "1000000/1h");
		LeasedRateLimiter limiter = leased(shared, 1, false);
		shared.answersAtOnce = true;
		int arriving = 20_000;
		Queue<CompletableFuture<Decision>> requests = new ConcurrentLinkedQueue<>();
		Queue<String> leasedOn = new ConcurrentLinkedQueue<>();
		AtomicInteger arrived = new AtomicInteger();
		shared.onLease = () -> {
			leasedOn.add(Thread.currentThread().getName());
			if (arrived.incrementAndGet() <= arriving) {
				requests.add(limiter.tryAcquireAsync("hot", 1).toCompletableFuture());
			}
		};
		CompletableFuture<Decision> first = new CompletableFuture<>();
		Thread caller = new Thread(null, () -> {
			try {
				limiter.tryAcquireAsync("hot", 1).whenComplete((decision, ex) -> {
					if (ex != null) {
						first.completeExceptionally(ex);
					}
					else {
						first.complete(decision);
					}
				});
			}
			catch (Throwable ex) {
				first.completeExceptionally(ex);
			}
		}, "small-stack", 256 * 1024);
		caller.start();
		caller.join(TimeUnit.SECONDS.toMillis(30));
		assertThat(caller.isAlive()).isFalse();
		assertThat(first).as("answered by its own round").isCompletedWithValueMatching(Decision::allowed);
		Await.until(() -> requests.size() == arriving);
		CompletableFuture.allOf(requests.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
		assertThat(requests).allSatisfy((request) -> assertThat(request).isCompletedWithValueMatching(Decision::allowed));
		assertThat(leasedOn).as("the first round on the caller's thread, the rest on the renewals' threads")
			.startsWith("small-stack")
			.filteredOn((thread) -> !thread.startsWith("ratelimit-lease-renewals-"))
			.containsExactly("small-stack");
		assertThat(limiter.stats().renewals()).isEqualTo(shared.leaseCalls.get()).isGreaterThan(arriving);
		// the renewal is over: the next request renews again and is answered
		assertThat(limiter.tryAcquire("hot", 1).allowed()).isTrue();
	}

	/**
	 * A renewal that breaks with an {@link Error} (a stack overflow, say) fails the requests waiting for it and ends,
	 * so that the next request renews again; before, the error left the renewal in flight and the key wedged.
	 */
	@Test
	void aRenewalThatBreaksWithAnErrorFailsItsWaitersAndTheNextRequestRenewsAgain() {
		WatchedRateLimiter shared = watched(Algorithm.TOKEN_BUCKET, "100/1h");
		LeasedRateLimiter limiter = leased(shared, 10, false);
		StackOverflowError overflow = new StackOverflowError("deep");
		shared.thrown.set(overflow);
		CompletableFuture<Decision> failed = limiter.tryAcquireAsync("k", 1).toCompletableFuture();
		assertThat(failed).isCompletedExceptionally();
		assertThatThrownBy(failed::join).hasCause(overflow);
		shared.thrown.set(null);
		assertThat(limiter.tryAcquireAsync("k", 1).toCompletableFuture()).succeedsWithin(Duration.ofSeconds(30))
			.matches(Decision::allowed);
	}

	/**
	 * Permits are given back on the returns' thread: never on the thread of the request that found them expired
	 * ({@code tryFromLease} does no I/O) nor on the JDK's delay scheduler, where the leases' cache expires leases
	 * (with Jedis the return is a blocking call on the thread that makes it).
	 */
	@Test
	void leasedPermitsAreGivenBackOnTheReturnsThreadOnly() {
		WatchedRateLimiter shared = watched(Algorithm.FIXED_WINDOW, "100/1h");
		LeasedRateLimiter limiter = leased(shared, 10, false);
		assertThat(limiter.tryAcquire("k", 1).allowed()).isTrue();
		this.clock.advance(MAX_AGE);
		assertThat(limiter.tryFromLease("k", 1)).isNull();
		Await.until(() -> limiter.stats().permitsReturned() == 9);
		assertThat(limiter.tryAcquire("evicted", 1).allowed()).isTrue();
		limiter.close();
		assertThat(limiter.stats().permitsReturned()).isEqualTo(18);
		assertThat(shared.returnThreads).hasSize(2)
			.allSatisfy((thread) -> assertThat(thread).startsWith("ratelimit-lease-returns-"));
	}

	@Test
	void resetDropsTheLeaseWithoutGivingItsPermitsBack() {
		WatchedRateLimiter shared = watched(Algorithm.FIXED_WINDOW, "100/1h");
		LeasedRateLimiter limiter = leased(shared, 10, false);
		assertThat(limiter.tryAcquire("k", 1).allowed()).isTrue();
		limiter.reset("k");
		assertThat(limiter.tryFromLease("k", 1)).isNull();
		assertThat(shared.returnCalls).hasValue(0);
		assertThat(shared.peek("k").remaining()).isEqualTo(100);
		assertThat(limiter.stats().permitsExpired()).isEqualTo(9);
	}

	@ParameterizedTest
	@EnumSource(names = { "SLIDING_WINDOW", "SLIDING_LOG" })
	void aPolicyThatCannotBeLeasedIsRejected(Algorithm algorithm) {
		assertThatIllegalArgumentException().isThrownBy(() -> leased(watched(algorithm, "10/1h"), 10, false))
			.withMessageContaining(algorithm.id());
	}

	private WatchedRateLimiter watched(Algorithm algorithm, String limit) {
		return new WatchedRateLimiter(this.backend.create(Policy.of("leased", algorithm, limit)));
	}

	private LeasedRateLimiter leased(WatchedRateLimiter shared, long batch, boolean adaptive) {
		return new LeasedRateLimiter(shared, new LeaseSettings(batch, adaptive, MAX_AGE),
				LeasedRateLimiter.DEFAULT_MAXIMUM_KEYS, this.nanos);
	}

}
