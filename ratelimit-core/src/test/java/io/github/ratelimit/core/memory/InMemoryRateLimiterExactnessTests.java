package io.github.ratelimit.core.memory;

import java.time.Duration;
import java.time.Instant;

import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.Policy;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.test.Hammer;
import io.github.ratelimit.test.ManualClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The in-memory backend on a clock the test moves, so every value can be asserted exactly, and under real threads.
 */
class InMemoryRateLimiterExactnessTests {

	private final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));

	private final InMemoryRateLimiterBackend backend = new InMemoryRateLimiterBackend(this.clock, "ratelimit");

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, names = { "TOKEN_BUCKET", "GCRA" })
	void bucketsRefillOneTokenPerCapacityOfThePeriod(Algorithm algorithm) {
		RateLimiter limiter = this.backend.create(Policy.of("p", algorithm, "10/1m"));
		limiter.tryAcquire("client", 10);
		Decision denied = limiter.tryAcquire("client");
		assertThat(denied.retryAfter()).isEqualTo(Duration.ofSeconds(6));
		assertThat(denied.resetAfter()).isEqualTo(Duration.ofMinutes(1));
		this.clock.advance(Duration.ofSeconds(6).minusNanos(1000));
		assertThat(limiter.tryAcquire("client").allowed()).isFalse();
		this.clock.advance(Duration.ofNanos(1000));
		assertThat(limiter.tryAcquire("client").allowed()).isTrue();
		this.clock.advance(Duration.ofSeconds(30));
		assertThat(limiter.peek("client").remaining()).isEqualTo(5);
	}

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, names = { "TOKEN_BUCKET", "GCRA" })
	void fractionalRatesDoNotDrift(Algorithm algorithm) {
		// 7 per second: one token every 142857.142857... microseconds
		RateLimiter limiter = this.backend.create(Policy.of("p", algorithm, "7/1s"));
		int admitted = 0;
		for (int step = 0; step <= 7_000; step++) {
			admitted += limiter.tryAcquire("client").allowed() ? 1 : 0;
			this.clock.advance(Duration.ofNanos(1_000_000));
		}
		// one request a millisecond from 0 s to 7 s inclusive: the burst of 7 plus exactly 7 refilled per second
		assertThat(admitted).isEqualTo(7 + 49);
	}

	@Test
	void fixedWindowResetsAtTheEpochAlignedBoundary() {
		RateLimiter limiter = this.backend.create(Policy.of("p", Algorithm.FIXED_WINDOW, "2/1m"));
		this.clock.advance(Duration.ofSeconds(50));
		limiter.tryAcquire("client", 2);
		Decision denied = limiter.tryAcquire("client");
		assertThat(denied.retryAfter()).isEqualTo(Duration.ofSeconds(10));
		this.clock.advance(Duration.ofSeconds(10));
		assertThat(limiter.tryAcquire("client").remaining()).isEqualTo(1);
	}

	@Test
	void slidingWindowWeighsThePreviousWindow() {
		RateLimiter limiter = this.backend.create(Policy.of("p", Algorithm.SLIDING_WINDOW, "10/1m"));
		limiter.tryAcquire("client", 10);
		// a quarter into the next window, 3/4 of the previous 10 still count: 7.5, room for 2
		this.clock.advance(Duration.ofSeconds(75));
		assertThat(limiter.peek("client").remaining()).isEqualTo(2);
		assertThat(limiter.tryAcquire("client", 2).allowed()).isTrue();
		Decision denied = limiter.tryAcquire("client");
		assertThat(denied.allowed()).isFalse();
		// 10 * (60 - t) / 60 + 3 <= 10 once t >= 18 s into the window: 3 s from now
		assertThat(denied.retryAfter()).isEqualTo(Duration.ofSeconds(3));
	}

	@Test
	void slidingLogForgetsEachPermitOnePeriodAfterIt() {
		RateLimiter limiter = this.backend.create(Policy.of("p", Algorithm.SLIDING_LOG, "2/1m"));
		limiter.tryAcquire("client");
		this.clock.advance(Duration.ofSeconds(20));
		limiter.tryAcquire("client");
		Decision denied = limiter.tryAcquire("client");
		assertThat(denied.retryAfter()).isEqualTo(Duration.ofSeconds(40));
		assertThat(denied.resetAfter()).isEqualTo(Duration.ofSeconds(60));
		this.clock.advance(Duration.ofSeconds(40));
		assertThat(limiter.tryAcquire("client").allowed()).isTrue();
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void idleClientsCostNoMemory(Algorithm algorithm) {
		RateLimiter limiter = this.backend.create(Policy.of("p", algorithm, "5/1m"));
		for (int i = 0; i < 100; i++) {
			limiter.tryAcquire("client-" + i);
		}
		assertThat(this.backend.size()).isEqualTo(100);
		this.clock.advance(Duration.ofMinutes(2));
		assertThat(this.backend.size()).isZero();
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void threadsOfOneInstanceAdmitExactlyTheLimit(Algorithm algorithm) throws Exception {
		RateLimiter limiter = new InMemoryRateLimiterBackend().create(Policy.of("p", algorithm, "100/1h"));
		int admitted = Hammer.admitted(1, 32, 40, (instance) -> limiter.tryAcquire("client").allowed());
		assertThat(admitted).isEqualTo(100);
	}

}
