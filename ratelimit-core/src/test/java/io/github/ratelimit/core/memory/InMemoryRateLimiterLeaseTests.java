package io.github.ratelimit.core.memory;

import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

import io.github.ratelimit.core.AbstractRateLimiterLeaseTests;
import io.github.ratelimit.core.RateLimiterBackend;
import io.github.ratelimit.test.ManualClock;

/**
 * The shared lease suite on the in-memory backend.
 */
class InMemoryRateLimiterLeaseTests extends AbstractRateLimiterLeaseTests {

	private final Clock clock = Clock.systemUTC();

	private final InMemoryRateLimiterBackend backend = new InMemoryRateLimiterBackend(this.clock, "ratelimit");

	@Override
	protected RateLimiterBackend backend() {
		return this.backend;
	}

	@Override
	protected RateLimiterBackend backendAt(ManualClock clock) {
		return new InMemoryRateLimiterBackend(clock, "ratelimit");
	}

	@Override
	protected long clockMicros() {
		return ChronoUnit.MICROS.between(Instant.EPOCH, this.clock.instant());
	}

}
