package io.github.ratelimit.core.memory;

import io.github.ratelimit.core.Limit;
import io.github.ratelimit.core.LimitDecision;

import org.jspecify.annotations.Nullable;

/**
 * Token bucket, the twin of {@code token-bucket.lua}: state {@code [level, time]}, the level in units of
 * {@code period / gcd} per token, refilled by {@code capacity / gcd} units per microsecond. A stored time from the
 * future (the clock stepped back) refills nothing until the clock passes it again.
 */
final class InMemoryTokenBucket implements InMemoryAlgorithm {

	@Override
	public Step evaluate(long @Nullable [] state, Limit limit, long now, long permits, boolean consume) {
		long g = InMemoryAlgorithm.gcd(limit.capacity(), limit.periodMicros());
		long rate = limit.capacity() / g;
		long unit = limit.periodMicros() / g;
		long full = limit.capacity() * unit;
		long level = full;
		// how long before the stored time now is, when the clock stepped back: refilling starts only then
		long gap = 0;
		if (state != null) {
			long elapsed = now - state[1];
			gap = Math.max(0, -elapsed);
			// compared before multiplying, so elapsed * rate stays below the missing units
			level = (elapsed >= InMemoryAlgorithm.ceilDiv(full - state[0], rate)) ? full
					: state[0] + Math.max(0, elapsed) * rate;
		}
		long need = permits * unit;
		boolean allowed = level >= need;
		long retry = allowed ? 0 : gap + InMemoryAlgorithm.ceilDiv(need - level, rate);
		long after = level;
		if (allowed && consume) {
			after = level - need;
			gap = 0;
		}
		long remaining = after / unit;
		long reset = gap + InMemoryAlgorithm.ceilDiv(full - after, rate);
		long next = (remaining == limit.capacity()) ? 0
				: gap + InMemoryAlgorithm.ceilDiv((remaining + 1) * unit - after, rate);
		LimitDecision outcome = new LimitDecision(limit, allowed, remaining, retry, reset, next);
		return new Step(outcome, new long[] { after, now }, now + reset);
	}

}
