package io.github.ratelimit.core.memory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

import io.github.ratelimit.core.AbstractRateLimiterBackendTests;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.core.RateLimiterBackend;
import io.github.ratelimit.test.ManualClock;
import org.jspecify.annotations.Nullable;

/**
 * The shared behavioural suite on the in-memory backend.
 */
class InMemoryRateLimiterBackendTests extends AbstractRateLimiterBackendTests {

	private final Clock clock = Clock.systemUTC();

	private final InMemoryRateLimiterBackend backend = new InMemoryRateLimiterBackend(this.clock, "ratelimit");

	@Override
	protected RateLimiterBackend backend() {
		return this.backend;
	}

	@Override
	protected @Nullable Duration retention(RateLimiter limiter, String key) {
		Long micros = ((InMemoryRateLimiter) limiter).retentionMicros(key);
		return (micros == null || micros <= 0) ? null : Duration.of(micros, ChronoUnit.MICROS);
	}

	@Override
	protected long clockMicros() {
		return ChronoUnit.MICROS.between(Instant.EPOCH, this.clock.instant());
	}

	@Override
	protected RateLimiterBackend backendAt(ManualClock clock) {
		return new InMemoryRateLimiterBackend(clock, "ratelimit");
	}

}
