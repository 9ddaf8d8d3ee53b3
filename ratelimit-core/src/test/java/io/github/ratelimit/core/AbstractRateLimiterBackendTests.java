package io.github.ratelimit.core;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import io.github.ratelimit.test.Expiry;
import io.github.ratelimit.test.ManualClock;
import io.github.ratelimit.test.StartedWindow;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The behaviour every backend must have, with the same assertions for all: the in-memory backend, Redis standalone
 * and Redis Cluster each run it, so they cannot drift apart. Time is real: tests that need refills use short periods
 * and sleep, and assert only what holds however long a step took; tests of one window of a fixed or sliding window
 * have it begin at the test ({@link #window}), so that none straddles two; tests whose expectations depend on the
 * exact moment of each decision set it on the clock of {@link #backendAt}.
 */
public abstract class AbstractRateLimiterBackendTests {

	/**
	 * What the backends' whole-microsecond (in-memory) and whole-millisecond (Redis' sorted set scores, expiries)
	 * arithmetic may take from a wait computed exactly.
	 */
	private static final long ROUNDING_MICROS = 1_000;

	/** Redis keeps expiries in milliseconds, rounding both when it sets them and when it reports them. */
	private static final long RETENTION_PRECISION_MICROS = 2_000;

	/** The start of a minute, so of every window of a minute or less. */
	private static final Instant MINUTE = Instant.parse("2026-03-01T00:00:00Z");

	/**
	 * The backend under test.
	 * @return the backend
	 */
	protected abstract RateLimiterBackend backend();

	/**
	 * How long the backend keeps the state of a client, the longest over the policy's limits.
	 * @param limiter the limiter
	 * @param key the client's key
	 * @return the retention, or {@code null} when nothing is stored for the client
	 */
	protected abstract @Nullable Duration retention(RateLimiter limiter, String key);

	/**
	 * The clock the backend decides on: Redis' {@code TIME}, or the in-memory backend's {@code Clock}.
	 * @return its time in microseconds
	 */
	protected abstract long clockMicros();

	/**
	 * The backend deciding at the time of a clock the test sets instead of its own: the in-memory backend on that
	 * clock; Redis running the backend's own scripts with that time in place of Redis' {@code TIME}.
	 * @param clock the clock
	 * @return the backend
	 */
	protected abstract RateLimiterBackend backendAt(ManualClock clock);

	protected RateLimiter limiter(Algorithm algorithm, String... limits) {
		return backend().create(Policy.of("p-" + UUID.randomUUID(), algorithm, limits));
	}

	protected RateLimiter limiter(Algorithm algorithm, Limit... limits) {
		return backend().create(new Policy("p-" + UUID.randomUUID(), algorithm, List.of(limits)));
	}

	/**
	 * The limit as written, or for an algorithm whose windows are aligned to the epoch, the same capacity per a period
	 * at least as long whose window began at the test on the backend's clock ({@link StartedWindow}).
	 * @param algorithm the algorithm
	 * @param limit the limit as written, such as {@code "10/1h"}
	 * @return the limit
	 */
	protected Limit window(Algorithm algorithm, String limit) {
		return StartedWindow.begunAt(clockMicros(), algorithm, limit);
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void freshKeyAdmitsExactlyItsCapacity(Algorithm algorithm) {
		Limit limit = window(algorithm, "10/1h");
		RateLimiter limiter = limiter(algorithm, limit);
		for (int i = 1; i <= 10; i++) {
			Decision decision = limiter.tryAcquire("client");
			assertThat(decision.allowed()).as("request %d", i).isTrue();
			assertThat(decision.remaining()).isEqualTo(10 - i);
			assertThat(decision.limit()).isEqualTo(limit);
			assertThat(decision.retryAfter()).isZero();
		}
		Decision denied = limiter.tryAcquire("client");
		assertThat(denied.allowed()).isFalse();
		assertThat(denied.remaining()).isZero();
		assertThat(denied.satisfiable()).isTrue();
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void asyncDecisionsShareTheStateOfBlockingOnes(Algorithm algorithm) throws Exception {
		RateLimiter limiter = limiter(algorithm, window(algorithm, "3/1h"));
		Decision first = limiter.tryAcquireAsync("client", 1).toCompletableFuture().get(10, TimeUnit.SECONDS);
		assertThat(first.allowed()).isTrue();
		assertThat(first.remaining()).isEqualTo(2);
		assertThat(limiter.tryAcquire("client", 2).allowed()).isTrue();
		Decision refused = limiter.tryAcquireAsync("client", 1).toCompletableFuture().get(10, TimeUnit.SECONDS);
		assertThat(refused.allowed()).isFalse();
		assertThat(refused.retryAfter()).isPositive();
		assertThat(limiter.tryAcquireAsync("client", 4).toCompletableFuture().get(10, TimeUnit.SECONDS).satisfiable())
			.isFalse();
		assertThatIllegalArgumentException().isThrownBy(() -> limiter.tryAcquireAsync("client", 0));
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void decisionReportsRemainingRetryAfterAndResetAfter(Algorithm algorithm) {
		Limit limit = window(algorithm, "10/1h");
		RateLimiter limiter = limiter(algorithm, limit);
		long period = limit.periodMicros();
		long token = period / 10;
		long beforeFirst = clockMicros();
		limiter.tryAcquire("client");
		limiter.tryAcquire("client");
		long beforeThird = clockMicros();
		Decision afterThree = limiter.tryAcquire("client");
		long afterThird = clockMicros();
		assertThat(afterThree.remaining()).isEqualTo(7);
		assertThat(afterThree.retryAfter()).isZero();
		// a window began at the test, so every decision here falls in the one in force now
		long windowEnd = StartedWindow.end(limit, beforeThird);
		long nextEnd = windowEnd + period;
		// what has refilled (token bucket, GCRA) or aged (sliding log) since the first decision shortens the waits, by
		// at most the time the decisions took, however slow the machine
		long sinceFirst = afterThird - beforeFirst;
		switch (algorithm) {
			// three tokens at one per 360 s
			case TOKEN_BUCKET, GCRA -> assertThat(micros(afterThree.resetAfter()))
				.isBetween(3 * token - sinceFirst - ROUNDING_MICROS, 3 * token);
			case FIXED_WINDOW -> assertThat(micros(afterThree.resetAfter())).isBetween(windowEnd - afterThird,
					windowEnd - beforeThird);
			// this window's count weighs on the next one until it ends
			case SLIDING_WINDOW -> assertThat(micros(afterThree.resetAfter()))
				.isBetween(nextEnd - afterThird, nextEnd - beforeThird);
			// the newest entry leaves the log a period after it was written
			case SLIDING_LOG -> assertThat(micros(afterThree.resetAfter()))
				.isBetween(period - (afterThird - beforeThird) - ROUNDING_MICROS, period);
		}
		for (int i = 0; i < 7; i++) {
			assertThat(limiter.tryAcquire("client").allowed()).isTrue();
		}
		long beforeDenial = clockMicros();
		Decision denied = limiter.tryAcquire("client");
		long afterDenial = clockMicros();
		assertThat(denied.allowed()).isFalse();
		assertThat(denied.remaining()).isZero();
		// the next window, once the weight of this one's 10 has fallen to 9: a tenth of a period into it
		long intoNext = limit.periodMicros() - Math.floorDiv(9 * limit.periodMicros(), 10);
		long untilDenial = afterDenial - beforeFirst;
		switch (algorithm) {
			// the next token in at most 360 s: what has refilled since the first decision counts towards it
			case TOKEN_BUCKET, GCRA -> assertThat(micros(denied.retryAfter()))
				.isBetween(token - untilDenial - ROUNDING_MICROS, token);
			case FIXED_WINDOW -> assertThat(micros(denied.retryAfter())).isBetween(windowEnd - afterDenial,
					windowEnd - beforeDenial);
			case SLIDING_WINDOW -> assertThat(micros(denied.retryAfter()))
				.isBetween(windowEnd - afterDenial + intoNext, windowEnd - beforeDenial + intoNext);
			// the oldest entry, the first decision's, leaves the log a period after it was written
			case SLIDING_LOG -> assertThat(micros(denied.retryAfter()))
				.isBetween(period - untilDenial - ROUNDING_MICROS, period);
		}
		assertThat(denied.retryAfterSeconds()).isPositive();
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void deniedRequestSucceedsOnceItsRetryAfterHasPassed(Algorithm algorithm) throws InterruptedException {
		RateLimiter limiter = limiter(algorithm, "3/400ms");
		Decision decision = exhaust(limiter, "client", 3);
		Thread.sleep(decision.retryAfter().toMillis() + 25);
		assertThat(limiter.tryAcquire("client").allowed()).isTrue();
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void capacityIsFullyReplenishedAfterTwoPeriods(Algorithm algorithm) throws InterruptedException {
		RateLimiter limiter = limiter(algorithm, "3/200ms");
		exhaust(limiter, "client", 3);
		Thread.sleep(420);
		for (int i = 0; i < 3; i++) {
			assertThat(limiter.tryAcquire("client").allowed()).as("request %d", i + 1).isTrue();
		}
	}

	@Test
	void slidingWindowWeighsThePreviousWindowByTheShareOfItStillInsideThePeriod() {
		ManualClock clock = new ManualClock(MINUTE.plusSeconds(30));
		RateLimiter limiter = backendAt(clock)
			.create(Policy.of("p-" + UUID.randomUUID(), Algorithm.SLIDING_WINDOW, "10/1m"));
		for (int i = 1; i <= 7; i++) {
			assertThat(limiter.tryAcquire("client").remaining()).isEqualTo(10 - i);
		}
		// 20 s into the next window, the last 40 s of the previous one are still inside the last minute: its 7 weigh
		// 7 * 40/60 = 4 2/3, leaving room for 5 (5 + 4 2/3 <= 10 < 6 + 4 2/3)
		clock.set(MINUTE.plusSeconds(80));
		assertThat(limiter.peek("client").remaining()).isEqualTo(5);
		for (int remaining = 4; remaining >= 0; remaining--) {
			Decision admitted = limiter.tryAcquire("client");
			assertThat(admitted.allowed()).isTrue();
			assertThat(admitted.remaining()).isEqualTo(remaining);
		}
		// a 6th fits once the 7 weigh at most 4: 7 * (60 s - t) <= 4 * 60 s from t = 25.7142857 s, the first whole
		// microsecond being 25,714,286, which is 5,714,286 us from now; the limit is whole again when this window's 5
		// have left the last minute too, 40 + 60 s from now
		Decision sixth = limiter.tryAcquire("client");
		assertThat(sixth.allowed()).isFalse();
		assertThat(sixth.remaining()).isZero();
		assertThat(sixth.retryAfter()).isEqualTo(Duration.ofNanos(5_714_286_000L));
		assertThat(sixth.nextPermitAfter()).isEqualTo(Duration.ofNanos(5_714_286_000L));
		assertThat(sixth.resetAfter()).isEqualTo(Duration.ofSeconds(100));
		clock.set(MINUTE.plusSeconds(60).plusNanos(25_714_285_000L));
		assertThat(limiter.tryAcquire("client").retryAfter()).isEqualTo(Duration.ofNanos(1_000));
		clock.set(MINUTE.plusSeconds(60).plusNanos(25_714_286_000L));
		Decision admitted = limiter.tryAcquire("client");
		assertThat(admitted.allowed()).isTrue();
		assertThat(admitted.remaining()).isZero();
		// a 7th fits once the 7 weigh at most 3: 7 * (60 s - t) <= 3 * 60 s from t = 34.2857143 s, the first whole
		// microsecond being 34,285,715, which is 8,571,429 us from now
		assertThat(limiter.tryAcquire("client").retryAfter()).isEqualTo(Duration.ofNanos(8_571_429_000L));
		// 5 more never fit this window (6 + 5 > 10); the next one begins 34,285,714 us from now, and there this
		// window's 6 weigh 6 * (60 s - t) / 60 s <= 10 - 5 from t = 10 s
		Decision five = limiter.tryAcquire("client", 5);
		assertThat(five.allowed()).isFalse();
		assertThat(five.retryAfter()).isEqualTo(Duration.ofNanos(44_285_714_000L));
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void permitsAreTakenTogether(Algorithm algorithm) {
		RateLimiter limiter = limiter(algorithm, window(algorithm, "10/1h"));
		Decision four = limiter.tryAcquire("client", 4);
		assertThat(four.allowed()).isTrue();
		assertThat(four.remaining()).isEqualTo(6);
		Decision seven = limiter.tryAcquire("client", 7);
		assertThat(seven.allowed()).isFalse();
		assertThat(seven.remaining()).isEqualTo(6);
		assertThat(seven.retryAfter()).isPositive();
		Decision six = limiter.tryAcquire("client", 6);
		assertThat(six.allowed()).isTrue();
		assertThat(six.remaining()).isZero();
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void costAboveCapacityIsDeniedAsNeverSatisfiable(Algorithm algorithm) {
		Limit limit = window(algorithm, "10/1h");
		RateLimiter limiter = limiter(algorithm, limit);
		Decision decision = limiter.tryAcquire("client", 11);
		assertThat(decision.allowed()).isFalse();
		assertThat(decision.satisfiable()).isFalse();
		// a period stands for "never"; the client's state is read without consuming, and reported as it is: full
		assertThat(decision.retryAfter()).isEqualTo(limit.period());
		assertThat(decision.limit()).isEqualTo(limit);
		assertThat(decision.remaining()).isEqualTo(10);
		assertThat(decision.resetAfter()).isZero();
		assertThat(decision.nextPermitAfter()).isZero();
		assertThat(decision.violated()).containsExactly(limit);
		assertThat(limiter.peek("client").remaining()).isEqualTo(10);
		assertThat(retention(limiter, "client")).isNull();
		assertThat(limiter.tryAcquire("client", 4).allowed()).isTrue();
		Decision afterFour = limiter.tryAcquire("client", 11);
		assertThat(afterFour.satisfiable()).isFalse();
		assertThat(afterFour.remaining()).isEqualTo(6);
		assertThat(afterFour.resetAfter()).isPositive();
		assertThat(limiter.peek("client").remaining()).isEqualTo(6);
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void costAboveTheSmallestCapacityReportsTheStateOfTheLimitItExceeds(Algorithm algorithm) {
		Limit burst = window(algorithm, "5/1h");
		Limit daily = window(algorithm, "100/1d");
		RateLimiter limiter = limiter(algorithm, daily, burst);
		Decision decision = limiter.tryAcquire("client", 6);
		assertThat(decision.satisfiable()).isFalse();
		assertThat(decision.limit()).isEqualTo(burst);
		assertThat(decision.remaining()).isEqualTo(5);
		assertThat(decision.resetAfter()).isZero();
		assertThat(decision.violated()).containsExactly(burst);
		assertThat(limiter.peek("client").remaining()).isEqualTo(5);
		assertThat(retention(limiter, "client")).isNull();
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void limitsAreAllOrNothingWhenTheFirstDenies(Algorithm algorithm) {
		Limit small = window(algorithm, "4/1h");
		assertAllOrNothing(limiter(algorithm, small, window(algorithm, "6/1d")), small);
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void limitsAreAllOrNothingWhenTheLastDenies(Algorithm algorithm) {
		Limit small = window(algorithm, "4/1h");
		assertAllOrNothing(limiter(algorithm, window(algorithm, "6/1d"), small), small);
	}

	private void assertAllOrNothing(RateLimiter limiter, Limit small) {
		Decision first = limiter.tryAcquire("client");
		assertThat(first.allowed()).isTrue();
		assertThat(first.limit()).isEqualTo(small);
		assertThat(first.remaining()).isEqualTo(3);
		// the 4 a window has 3 left and refuses 4; the 6 has 5 left and would admit them
		Decision denied = limiter.tryAcquire("client", 4);
		assertThat(denied.allowed()).isFalse();
		assertThat(denied.limit()).isEqualTo(small);
		assertThat(denied.remaining()).isEqualTo(3);
		// had the 6 been charged for the denied request, it would have 1 left and bind here
		Decision next = limiter.tryAcquire("client");
		assertThat(next.allowed()).isTrue();
		assertThat(next.limit()).isEqualTo(small);
		assertThat(next.remaining()).isEqualTo(2);
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void bindingLimitOfMultipleLimitsIsTheOneWithFewestRemaining(Algorithm algorithm) {
		Limit day = window(algorithm, "3/1d");
		RateLimiter limiter = limiter(algorithm, window(algorithm, "5/1h"), day);
		Decision decision = limiter.tryAcquire("client", 2);
		assertThat(decision.limit()).isEqualTo(day);
		assertThat(decision.remaining()).isEqualTo(1);
		Decision denied = limiter.tryAcquire("client", 2);
		assertThat(denied.allowed()).isFalse();
		assertThat(denied.limit()).isEqualTo(day);
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void peekConsumesNothing(Algorithm algorithm) {
		RateLimiter limiter = limiter(algorithm, window(algorithm, "3/1h"));
		assertThat(limiter.peek("client").remaining()).isEqualTo(3);
		assertThat(retention(limiter, "client")).isNull();
		limiter.tryAcquire("client");
		for (int i = 0; i < 5; i++) {
			Decision peek = limiter.peek("client");
			assertThat(peek.allowed()).isTrue();
			assertThat(peek.remaining()).isEqualTo(2);
		}
		assertThat(limiter.tryAcquire("client").allowed()).isTrue();
		assertThat(limiter.tryAcquire("client").allowed()).isTrue();
		Decision exhausted = limiter.peek("client");
		assertThat(exhausted.allowed()).isFalse();
		assertThat(exhausted.remaining()).isZero();
		assertThat(exhausted.retryAfter()).isPositive();
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void resetClearsEveryLimit(Algorithm algorithm) {
		RateLimiter limiter = limiter(algorithm, window(algorithm, "2/1h"), window(algorithm, "3/1d"));
		exhaust(limiter, "client", 2);
		limiter.reset("client");
		assertThat(retention(limiter, "client")).isNull();
		Decision decision = limiter.tryAcquire("client");
		assertThat(decision.allowed()).isTrue();
		assertThat(decision.remaining()).isEqualTo(1);
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void storedStateIsKeptExactlyAsLongAsItMatters(Algorithm algorithm) {
		Limit limit = window(algorithm, "10/1h");
		RateLimiter limiter = limiter(algorithm, limit);
		long beforeDecision = clockMicros();
		Decision decision = limiter.tryAcquire("client", 2);
		long beforeRead = clockMicros();
		Duration retention = retention(limiter, "client");
		long afterRead = clockMicros();
		assertThat(retention).isPositive().isLessThanOrEqualTo(ceilMillis(decision.resetAfter()));
		// from below too: state dropped early would hand the client a full limit back early
		long earliest = Expiry.of(algorithm, limit, 2, beforeDecision) - afterRead - RETENTION_PRECISION_MICROS;
		// from above: a script that sets a key's TTL relative to the time it read counts it from the moment it sets
		// it, which is later by however long the script ran (and the Redis process was kept off its CPU) in between;
		// the time left to an expiry can only shrink as the clock advances, so the longest the state may be kept is
		// the time left when the decision started (a bound from the time of the read failed whenever Redis was
		// preempted mid-script for more than the rounding allows)
		long latest = Expiry.of(algorithm, limit, 2, beforeDecision) - beforeDecision + RETENTION_PRECISION_MICROS;
		assertThat(retention.toNanos() / 1000).isBetween(earliest, latest);
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void stateOfShortLimitsExpires(Algorithm algorithm) throws InterruptedException {
		RateLimiter limiter = limiter(algorithm, "5/100ms");
		limiter.tryAcquire("client", 5);
		Thread.sleep(250);
		assertThat(retention(limiter, "client")).isNull();
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void hostileKeysStayDistinct(Algorithm algorithm) {
		RateLimiter limiter = limiter(algorithm, window(algorithm, "1/1h"));
		List<String> keys = hostileKeys();
		for (String key : keys) {
			assertThat(limiter.tryAcquire(key).allowed()).as("first request of %s", abbreviate(key)).isTrue();
		}
		for (String key : keys) {
			assertThat(limiter.tryAcquire(key).allowed()).as("second request of %s", abbreviate(key)).isFalse();
		}
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void changedLimitsStartFromFreshState(Algorithm algorithm) {
		String name = "p-" + UUID.randomUUID();
		Limit one = window(algorithm, "1/1h");
		RateLimiter before = backend().create(new Policy(name, algorithm, List.of(one)));
		assertThat(before.tryAcquire("client").allowed()).isTrue();
		assertThat(before.tryAcquire("client").allowed()).isFalse();
		RateLimiter after = backend().create(new Policy(name, algorithm, List.of(new Limit(2, one.period()))));
		assertThat(after.tryAcquire("client").remaining()).isEqualTo(1);
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void limitersOfOnePolicyShareState(Algorithm algorithm) {
		Policy policy = new Policy("p-" + UUID.randomUUID(), algorithm, List.of(window(algorithm, "2/1h")));
		RateLimiter one = backend().create(policy);
		RateLimiter two = backend().create(policy);
		assertThat(one.tryAcquire("client").allowed()).isTrue();
		assertThat(two.tryAcquire("client").allowed()).isTrue();
		assertThat(one.tryAcquire("client").allowed()).isFalse();
		assertThat(two.tryAcquire("client").allowed()).isFalse();
		assertThat(one.tryAcquire("other").allowed()).isTrue();
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void keysAreIndependentAcrossPolicies(Algorithm algorithm) {
		RateLimiter one = limiter(algorithm, "1/1h");
		RateLimiter two = limiter(algorithm, "1/1h");
		assertThat(one.tryAcquire("client").allowed()).isTrue();
		assertThat(two.tryAcquire("client").allowed()).isTrue();
	}

	@Test
	void badArgumentsAreRefusedWithAMessage() {
		RateLimiter limiter = limiter(Algorithm.TOKEN_BUCKET, "1/1h");
		assertThatIllegalArgumentException().isThrownBy(() -> limiter.tryAcquire(null)).withMessageContaining("null");
		assertThatIllegalArgumentException().isThrownBy(() -> limiter.tryAcquire("")).withMessageContaining("empty");
		assertThatIllegalArgumentException().isThrownBy(() -> limiter.tryAcquire("client", 0))
			.withMessageContaining("Permits must be at least 1, was 0");
		assertThatIllegalArgumentException().isThrownBy(() -> limiter.tryAcquire("client", -3))
			.withMessageContaining("was -3");
		assertThatIllegalArgumentException().isThrownBy(() -> limiter.peek(null)).withMessageContaining("null");
		assertThatIllegalArgumentException().isThrownBy(() -> limiter.reset("")).withMessageContaining("empty");
	}

	/**
	 * Keys a client could send to break a naive layout: braces that would move the Redis Cluster hash tag, the
	 * separator, unicode, and long keys that differ only at the end.
	 * @return the keys
	 */
	public static List<String> hostileKeys() {
		List<String> keys = new ArrayList<>(List.of("{", "}", "{}", "}{", "{a}", "a}b", "a:b", "a", ":a", "a:",
				"ratelimit:x:{y}:0", "ключ", "鍵", "🔑", "e\u0301", "\u00e9", " ", "\t", "\u0000", "#"));
		String tenKb = "x".repeat(10 * 1024);
		keys.add(tenKb);
		keys.add(tenKb.substring(1) + "y");
		keys.add("z".repeat(64));
		keys.add("z".repeat(65));
		keys.add("é".repeat(32));
		keys.add("é".repeat(33));
		return keys;
	}

	protected static Decision exhaust(RateLimiter limiter, String key, int capacity) {
		for (int i = 0; i < capacity * 3; i++) {
			Decision decision = limiter.tryAcquire(key);
			if (!decision.allowed()) {
				return decision;
			}
		}
		throw new AssertionError("Never denied after " + capacity * 3 + " requests");
	}

	private static long micros(Duration duration) {
		return duration.toNanos() / 1000;
	}

	private static Duration ceilMillis(Duration duration) {
		Duration millis = Duration.ofMillis(duration.toMillis());
		return millis.equals(duration) ? millis : millis.plusMillis(1);
	}

	private static String abbreviate(String key) {
		return (key.length() > 20) ? key.substring(0, 20) + "...(" + key.length() + " chars)" : "'" + key + "'";
	}

}
