package io.github.ratelimit.core;

import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

import io.github.ratelimit.test.ManualClock;
import io.github.ratelimit.test.StartedWindow;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * How every backend grants leases and takes leased permits back, with the same assertions for all: the in-memory
 * backend, Redis standalone and Redis Cluster each run it. Time is real, the limits long enough that no refill
 * happens between two steps of one test, and a fixed window's begins at the test, so that no test straddles two
 * windows; except where a test sets the moment of each step on the clock of {@link #backendAt}.
 */
public abstract class AbstractRateLimiterLeaseTests {

	/** The start of a minute, so of every window of a minute or less. */
	private static final Instant MINUTE = Instant.parse("2026-03-01T00:00:00Z");

	/**
	 * The backend under test.
	 * @return the backend
	 */
	protected abstract RateLimiterBackend backend();

	/**
	 * The backend deciding at the time of a clock the test sets instead of its own: the in-memory backend on that
	 * clock; Redis running the backend's own scripts with that time in place of Redis' {@code TIME}.
	 * @param clock the clock
	 * @return the backend
	 */
	protected abstract RateLimiterBackend backendAt(ManualClock clock);

	/**
	 * The clock the backend decides on: Redis' {@code TIME}, or the in-memory backend's {@code Clock}.
	 * @return its time in microseconds
	 */
	protected abstract long clockMicros();

	/**
	 * A limiter of the limits as written, or for a fixed window, of the same capacities per periods at least as long
	 * whose windows began at the test ({@link StartedWindow}).
	 */
	private RateLimiter limiter(Algorithm algorithm, String... limits) {
		long now = clockMicros();
		List<Limit> started = Arrays.stream(limits)
			.map((limit) -> StartedWindow.begunAt(now, algorithm, limit))
			.toList();
		return backend().create(new Policy("lease-" + UUID.randomUUID(), algorithm, started));
	}

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, names = { "TOKEN_BUCKET", "GCRA", "FIXED_WINDOW" })
	void grantTakesTheMostAvailableUpToTheMaximum(Algorithm algorithm) {
		RateLimiter limiter = limiter(algorithm, "10/1h");
		LeaseGrant first = lease(limiter, 1, 4);
		assertThat(first.granted()).isEqualTo(4);
		assertThat(first.decision().allowed()).isTrue();
		assertThat(first.decision().remaining()).isEqualTo(6);
		assertThat(first.takenAtMicros()).isPositive();
		assertThat(limiter.tryAcquire("client", 5).remaining()).isEqualTo(1);
		LeaseGrant last = lease(limiter, 1, 4);
		assertThat(last.granted()).isEqualTo(1);
		assertThat(last.decision().remaining()).isZero();
		LeaseGrant refused = lease(limiter, 1, 4);
		assertThat(refused.allowed()).isFalse();
		assertThat(refused.granted()).isZero();
		assertSameRefusal(refused.decision(), limiter.tryAcquire("client", 1));
	}

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, names = { "TOKEN_BUCKET", "GCRA", "FIXED_WINDOW" })
	void minimumAboveWhatIsAvailableIsRefusedAsTryAcquireOfTheMinimumAndTakesNothing(Algorithm algorithm) {
		RateLimiter limiter = limiter(algorithm, "10/1h");
		limiter.tryAcquire("client", 7);
		LeaseGrant refused = lease(limiter, 4, 8);
		assertThat(refused.granted()).isZero();
		assertSameRefusal(refused.decision(), limiter.tryAcquire("client", 4));
		assertThat(limiter.tryAcquire("client", 3).allowed()).isTrue();
	}

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, names = { "TOKEN_BUCKET", "GCRA", "FIXED_WINDOW" })
	void minimumAboveTheSmallestCapacityIsRefusedAsNeverSatisfiable(Algorithm algorithm) {
		RateLimiter limiter = limiter(algorithm, "10/1h", "5/1d");
		LeaseGrant refused = lease(limiter, 6, 8);
		assertThat(refused.granted()).isZero();
		assertThat(refused.decision()).isEqualTo(limiter.tryAcquire("client", 6));
		assertThat(refused.decision().satisfiable()).isFalse();
		assertThat(limiter.peek("client").remaining()).isEqualTo(5);
	}

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, names = { "TOKEN_BUCKET", "GCRA", "FIXED_WINDOW" })
	void maximumAboveTheSmallestCapacityIsTakenAsThatCapacity(Algorithm algorithm) {
		RateLimiter limiter = limiter(algorithm, "10/1h", "20/1d");
		LeaseGrant grant = lease(limiter, 1, Long.MAX_VALUE);
		assertThat(grant.granted()).isEqualTo(10);
		assertThat(limiter.tryAcquire("client").allowed()).isFalse();
	}

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, names = { "TOKEN_BUCKET", "GCRA", "FIXED_WINDOW" })
	void multipleLimitsGrantTheFewestAnyLimitHasAndTakeThemFromAll(Algorithm algorithm) {
		RateLimiter limiter = limiter(algorithm, "12/1d", "10/1h");
		Limit hour = limiter.policy().limits().get(1);
		limiter.tryAcquire("client", 3);
		LeaseGrant grant = lease(limiter, 1, 100);
		assertThat(grant.granted()).isEqualTo(7);
		assertThat(grant.decision().limit()).isEqualTo(hour);
		assertThat(grant.decision().remaining()).isZero();
		limiter.reset("client");
		limiter.tryAcquire("client", 3);
		LeaseGrant refused = lease(limiter, 8, 10);
		assertThat(refused.granted()).isZero();
		assertThat(refused.decision().violated()).containsExactly(hour);
		assertThat(limiter.peek("client").remaining()).isEqualTo(7);
	}

	@Test
	void fixedWindowTakesUnusedPermitsBackIntoTheirWindowNotBelowZero() {
		RateLimiter limiter = limiter(Algorithm.FIXED_WINDOW, "10/1h", "30/1d");
		LeaseGrant grant = lease(limiter, 1, 3);
		assertThat(giveBack(limiter, grant, 2)).isEqualTo(2);
		assertThat(limiter.peek("client").remaining()).isEqualTo(9);
		assertThat(giveBack(limiter, grant, 3)).isEqualTo(1);
		assertThat(limiter.peek("client").remaining()).isEqualTo(10);
		assertThat(giveBack(limiter, grant, 0)).isZero();
	}

	@Test
	void fixedWindowTakesPermitsBackUntilTheirWindowEndsAndNeverIntoTheNext() {
		// a day's window outlives the minute's: each limit takes permits back on its own, and the return answers the
		// fewest any took back
		ManualClock clock = new ManualClock(MINUTE.plusSeconds(50));
		RateLimiter limiter = backendAt(clock)
			.create(Policy.of("lease-" + UUID.randomUUID(), Algorithm.FIXED_WINDOW, "10/1m", "8/1d"));
		LeaseGrant grant = lease(limiter, 1, 4);
		assertThat(grant.granted()).isEqualTo(4);
		assertThat(grant.takenAtMicros()).isEqualTo(1_772_323_250_000_000L);
		// the minute's last microsecond still takes them: 10 - 4 + 1 and 8 - 4 + 1 left, the day binding
		clock.set(MINUTE.plusSeconds(60).minusNanos(1_000));
		assertThat(giveBack(limiter, grant, 1)).isEqualTo(1);
		assertThat(limiter.peek("client").remaining()).isEqualTo(5);
		// from the minute's end it takes nothing, although nothing has been written in the next minute yet; the day
		// takes its permit: 8 - 3 + 1
		clock.set(MINUTE.plusSeconds(60));
		assertThat(giveBack(limiter, grant, 1)).isZero();
		assertThat(limiter.peek("client").remaining()).isEqualTo(6);
		// nor once the next minute holds a permit, which was not taken from it: 10 - 1 and, for the day, 8 - 3 + 2
		assertThat(limiter.tryAcquire("client").remaining()).isEqualTo(5);
		assertThat(giveBack(limiter, grant, 2)).isZero();
		Decision peek = limiter.peek("client");
		assertThat(peek.limit()).isEqualTo(Limit.parse("8/1d"));
		assertThat(peek.remaining()).isEqualTo(7);
	}

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, names = { "TOKEN_BUCKET", "GCRA" })
	void bucketsTakeNothingBack(Algorithm algorithm) {
		RateLimiter limiter = limiter(algorithm, "10/1h");
		LeaseGrant grant = lease(limiter, 1, 5);
		assertThat(giveBack(limiter, grant, 5)).isZero();
		assertThat(limiter.peek("client").remaining()).isEqualTo(5);
	}

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, names = { "SLIDING_WINDOW", "SLIDING_LOG" })
	void slidingAlgorithmsCannotBeLeased(Algorithm algorithm) {
		RateLimiter limiter = limiter(algorithm, "10/1h");
		LeaseGrant grant = new LeaseGrant(1, limiter.peek("client"), 1);
		assertThatExceptionOfType(UnsupportedOperationException.class)
			.isThrownBy(() -> limiter.tryLeaseAsync("client", 1, 2))
			.withMessageContaining(algorithm.id());
		assertThatExceptionOfType(UnsupportedOperationException.class)
			.isThrownBy(() -> limiter.returnLeasedAsync("client", grant, 1));
	}

	@Test
	void badLeaseArgumentsAreRefusedWithAMessage() {
		RateLimiter limiter = limiter(Algorithm.FIXED_WINDOW, "10/1h");
		LeaseGrant grant = lease(limiter, 1, 2);
		assertThatIllegalArgumentException().isThrownBy(() -> limiter.tryLeaseAsync("", 1, 2))
			.withMessageContaining("empty");
		assertThatIllegalArgumentException().isThrownBy(() -> limiter.tryLeaseAsync("client", 0, 2))
			.withMessageContaining("at least 1");
		assertThatIllegalArgumentException().isThrownBy(() -> limiter.tryLeaseAsync("client", 3, 2))
			.withMessageContaining("at least its minimum");
		assertThatIllegalArgumentException().isThrownBy(() -> limiter.returnLeasedAsync("client", grant, 3))
			.withMessageContaining("between 0 and the 2 granted");
		assertThatIllegalArgumentException().isThrownBy(() -> limiter.returnLeasedAsync("client", grant, -1));
		assertThatIllegalArgumentException().isThrownBy(() -> limiter.returnLeasedAsync("client", null, 1));
	}

	private static void assertSameRefusal(Decision lease, Decision exact) {
		assertThat(lease.allowed()).isFalse();
		assertThat(exact.allowed()).isFalse();
		assertThat(lease.limit()).isEqualTo(exact.limit());
		assertThat(lease.remaining()).isEqualTo(exact.remaining());
		assertThat(lease.satisfiable()).isEqualTo(exact.satisfiable());
		assertThat(lease.violated()).isEqualTo(exact.violated());
		// the two were decided a moment apart: their waits differ by that moment at most
		assertThat(lease.retryAfter()).isPositive().isGreaterThanOrEqualTo(exact.retryAfter());
	}

	private static LeaseGrant lease(RateLimiter limiter, long minimum, long maximum) {
		return join(limiter.tryLeaseAsync("client", minimum, maximum));
	}

	private static long giveBack(RateLimiter limiter, LeaseGrant grant, long permits) {
		return join(limiter.returnLeasedAsync("client", grant, permits));
	}

	private static <T> T join(CompletionStage<T> stage) {
		try {
			return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

}
