package io.github.ratelimit.core.memory;

import java.time.Clock;

import io.github.ratelimit.core.AbstractRateLimiterLeaseTests;
import io.github.ratelimit.core.RateLimiterBackend;
import io.github.ratelimit.test.ManualClock;

/**
 * The shared lease suite on the in-memory backend.
 */
class InMemoryRateLimiterLeaseTests extends AbstractRateLimiterLeaseTests {

	private final InMemoryRateLimiterBackend backend = new InMemoryRateLimiterBackend(Clock.systemUTC(), "ratelimit");

	@Override
	protected RateLimiterBackend backend() {
		return this.backend;
	}

	@Override
	protected RateLimiterBackend backendAt(ManualClock clock) {
		return new InMemoryRateLimiterBackend(clock, "ratelimit");
	}

}
