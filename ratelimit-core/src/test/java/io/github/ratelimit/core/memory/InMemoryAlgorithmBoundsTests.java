package io.github.ratelimit.core.memory;

import java.time.Duration;
import java.time.Instant;

import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.Policy;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.test.ManualClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The in-memory twins at the edges of their arithmetic and their clock: costs far above every capacity, limits at
 * the bounds {@link Policy} accepts, a clock that steps backwards, and draft-10's time until the next permit.
 */
class InMemoryAlgorithmBoundsTests {

	private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

	private final ManualClock clock = new ManualClock(START);

	private final InMemoryRateLimiterBackend backend = new InMemoryRateLimiterBackend(this.clock, "ratelimit");

	@Test
	void fixedWindowHugeCostWritesNothingAndLeavesTheLimitExact() {
		RateLimiter limiter = this.backend.create(Policy.of("p", Algorithm.FIXED_WINDOW, "5/1h"));
		assertThat(limiter.tryAcquire("client").allowed()).isTrue();
		Decision huge = limiter.tryAcquire("client", Long.MAX_VALUE);
		assertThat(huge.allowed()).isFalse();
		assertThat(huge.satisfiable()).isFalse();
		int admitted = 1;
		for (int i = 0; i < 1000; i++) {
			admitted += limiter.tryAcquire("client").allowed() ? 1 : 0;
		}
		assertThat(admitted).isEqualTo(5);
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void costAboveEveryCapacityIsRefusedWithoutWritingState(Algorithm algorithm) {
		RateLimiter limiter = this.backend.create(Policy.of("p", algorithm, "10/1s", "500/1d"));
		for (long cost : new long[] { 11, 1L << 53, (1L << 53) + 1, Long.MAX_VALUE }) {
			Decision decision = limiter.tryAcquire("client", cost);
			assertThat(decision.allowed()).isFalse();
			assertThat(decision.satisfiable()).isFalse();
			assertThat(decision.limit().capacity()).isEqualTo(10);
			assertThat(decision.retryAfter()).isEqualTo(Duration.ofSeconds(1));
			assertThat(decision.remaining()).isEqualTo(10);
		}
		assertThat(this.backend.size()).isZero();
		assertThat(limiter.tryAcquire("client", 10).allowed()).isTrue();
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void limitsAtTheBoundsDecideWithoutOverflow(Algorithm algorithm) {
		String[] limits = switch (algorithm) {
			// capacity x period in microseconds at most 2^53
			case SLIDING_WINDOW -> new String[] { "104249/1d", "9007199254740/1ms" };
			case SLIDING_LOG -> new String[] { "500/1000d", "500/1ms" };
			// lcm(capacity, period) at most 2^53: 1ms divides 9007199254740
			default -> new String[] { "9007199254740/1ms", "1/1000d" };
		};
		for (String text : limits) {
			RateLimiter limiter = this.backend.create(Policy.of("p-" + text.replace('/', '-'), algorithm, text));
			long capacity = limiter.policy().limits().get(0).capacity();
			Decision all = limiter.tryAcquire("client", capacity);
			assertThat(all.allowed()).as(text).isTrue();
			assertThat(all.remaining()).as(text).isZero();
			Decision refused = limiter.tryAcquire("client", capacity);
			assertThat(refused.allowed()).as(text).isFalse();
			assertThat(refused.satisfiable()).as(text).isTrue();
			assertThat(refused.retryAfter()).as(text).isPositive();
			this.clock.advance(Duration.ofDays(2001));
			assertThat(limiter.tryAcquire("client", capacity).allowed()).as(text).isTrue();
		}
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void clockSteppingBackAfterExhaustionAdmitsNothingMore(Algorithm algorithm) {
		RateLimiter limiter = this.backend.create(Policy.of("p", algorithm, "4/1m"));
		for (Duration back : new Duration[] { Duration.ofSeconds(1), Duration.ofSeconds(30), Duration.ofMinutes(1),
				Duration.ofMinutes(5), Duration.ofDays(3) }) {
			String client = "client-" + back;
			this.clock.set(START.plusSeconds(59));
			assertThat(limiter.tryAcquire(client, 3).allowed()).isTrue();
			this.clock.set(START.plusSeconds(59).minus(back));
			assertThat(limiter.peek(client).remaining()).as(back.toString()).isLessThanOrEqualTo(1);
			assertThat(limiter.tryAcquire(client, 2).allowed()).as(back.toString()).isFalse();
			Decision refused = limiter.tryAcquire(client, 2);
			// the wait is measured on the stepped clock: retrying then succeeds, a microsecond earlier does not
			Instant retryAt = this.clock.instant().plus(refused.retryAfter());
			this.clock.set(retryAt.minusNanos(1000));
			assertThat(limiter.tryAcquire(client, 2).allowed()).as(back.toString()).isFalse();
			this.clock.set(retryAt);
			assertThat(limiter.tryAcquire(client, 2).allowed()).as(back.toString()).isTrue();
		}
	}

	@Test
	void fixedWindowFromTheFutureStaysCurrentUntilItEnds() {
		RateLimiter limiter = this.backend.create(Policy.of("p", Algorithm.FIXED_WINDOW, "2/1m"));
		this.clock.set(START.plusSeconds(61));
		assertThat(limiter.tryAcquire("client", 2).allowed()).isTrue();
		this.clock.set(START.plusSeconds(50));
		Decision refused = limiter.tryAcquire("client");
		assertThat(refused.allowed()).isFalse();
		assertThat(refused.retryAfter()).isEqualTo(Duration.ofSeconds(70));
		this.clock.set(START.plusSeconds(120));
		assertThat(limiter.tryAcquire("client", 2).allowed()).isTrue();
	}

	@Test
	void tokenBucketNextPermitIsTheNextWholeToken() {
		RateLimiter limiter = this.backend.create(Policy.of("p", Algorithm.TOKEN_BUCKET, "5/10s"));
		assertThat(limiter.peek("client").nextPermitAfter()).isZero();
		Decision second = limiter.tryAcquire("client", 2);
		assertThat(second.remaining()).isEqualTo(3);
		assertThat(second.resetAfter()).isEqualTo(Duration.ofSeconds(4));
		assertThat(second.nextPermitAfter()).isEqualTo(Duration.ofSeconds(2));
		this.clock.advance(Duration.ofMillis(500));
		assertThat(limiter.peek("client").nextPermitAfter()).isEqualTo(Duration.ofMillis(1500));
		limiter.tryAcquire("client", 3);
		Decision refused = limiter.tryAcquire("client", 3);
		assertThat(refused.retryAfter()).isEqualTo(Duration.ofMillis(5500));
		assertThat(refused.nextPermitAfter()).isEqualTo(Duration.ofMillis(1500));
	}

	@Test
	void gcraNextPermitIsTheNextWholeToken() {
		RateLimiter limiter = this.backend.create(Policy.of("p", Algorithm.GCRA, "5/10s"));
		Decision second = limiter.tryAcquire("client", 2);
		assertThat(second.resetAfter()).isEqualTo(Duration.ofSeconds(4));
		assertThat(second.nextPermitAfter()).isEqualTo(Duration.ofSeconds(2));
		this.clock.advance(Duration.ofMillis(500));
		limiter.tryAcquire("client", 3);
		Decision refused = limiter.tryAcquire("client", 3);
		assertThat(refused.retryAfter()).isEqualTo(Duration.ofMillis(5500));
		assertThat(refused.nextPermitAfter()).isEqualTo(Duration.ofMillis(1500));
	}

	@Test
	void fixedWindowNextPermitIsTheWindowEnd() {
		RateLimiter limiter = this.backend.create(Policy.of("p", Algorithm.FIXED_WINDOW, "5/1m"));
		this.clock.set(START.plusSeconds(20));
		assertThat(limiter.tryAcquire("client").nextPermitAfter()).isEqualTo(Duration.ofSeconds(40));
	}

	@Test
	void slidingLogNextPermitIsTheOldestPermitsExpiry() {
		RateLimiter limiter = this.backend.create(Policy.of("p", Algorithm.SLIDING_LOG, "3/1m"));
		limiter.tryAcquire("client");
		this.clock.advance(Duration.ofSeconds(10));
		Decision second = limiter.tryAcquire("client");
		assertThat(second.resetAfter()).isEqualTo(Duration.ofSeconds(60));
		assertThat(second.nextPermitAfter()).isEqualTo(Duration.ofSeconds(50));
		this.clock.advance(Duration.ofSeconds(10));
		limiter.tryAcquire("client");
		Decision refused = limiter.tryAcquire("client", 2);
		assertThat(refused.retryAfter()).isEqualTo(Duration.ofSeconds(50));
		assertThat(refused.nextPermitAfter()).isEqualTo(Duration.ofSeconds(40));
	}

	@Test
	void slidingWindowNextPermitIsWhenTheEstimateLeavesRoomForOneMore() {
		RateLimiter limiter = this.backend.create(Policy.of("p", Algorithm.SLIDING_WINDOW, "10/1m"));
		limiter.tryAcquire("client", 10);
		this.clock.advance(Duration.ofSeconds(75));
		// previous window 10, weighted 45/60: remaining floor(10 - 7.5) = 2; 3 once the weight is 7: at 18 s in
		Decision peek = limiter.peek("client");
		assertThat(peek.remaining()).isEqualTo(2);
		assertThat(peek.nextPermitAfter()).isEqualTo(Duration.ofSeconds(3));
		this.clock.advance(Duration.ofSeconds(3).minusNanos(1000));
		assertThat(limiter.peek("client").remaining()).isEqualTo(2);
		this.clock.advance(Duration.ofNanos(1000));
		assertThat(limiter.peek("client").remaining()).isEqualTo(3);
	}

	@Test
	void slidingLogLogsAtTheNewestTimeWhenTheClockSteppedBack() {
		RateLimiter limiter = this.backend.create(Policy.of("p", Algorithm.SLIDING_LOG, "2/1m"));
		this.clock.set(START.plusSeconds(30));
		limiter.tryAcquire("client");
		this.clock.set(START);
		limiter.tryAcquire("client");
		this.clock.set(START.plusSeconds(89));
		assertThat(limiter.tryAcquire("client").allowed()).isFalse();
		this.clock.set(START.plusSeconds(90));
		assertThat(limiter.tryAcquire("client", 2).allowed()).isTrue();
	}

}
