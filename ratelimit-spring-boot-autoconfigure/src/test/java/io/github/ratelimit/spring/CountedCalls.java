package io.github.ratelimit.spring;

import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.Policy;
import io.github.ratelimit.core.RateLimiter;

/**
 * A limiter that counts the decisions it passes on to another (on Redis), and the most in flight at once.
 */
final class CountedCalls implements RateLimiter {

	final AtomicInteger calls = new AtomicInteger();

	final AtomicInteger mostAtOnce = new AtomicInteger();

	private final AtomicInteger inFlight = new AtomicInteger();

	private final RateLimiter limiter;

	CountedCalls(RateLimiter limiter) {
		this.limiter = limiter;
	}

	@Override
	public Policy policy() {
		return this.limiter.policy();
	}

	@Override
	public CompletionStage<Decision> tryAcquireAsync(String key, long permits) {
		this.calls.incrementAndGet();
		this.mostAtOnce.accumulateAndGet(this.inFlight.incrementAndGet(), Math::max);
		return this.limiter.tryAcquireAsync(key, permits)
			.whenComplete((decision, error) -> this.inFlight.decrementAndGet());
	}

	@Override
	public Decision peek(String key) {
		return this.limiter.peek(key);
	}

	@Override
	public void reset(String key) {
		this.limiter.reset(key);
	}

}
