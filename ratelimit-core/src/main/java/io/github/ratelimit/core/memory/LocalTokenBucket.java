package io.github.ratelimit.core.memory;

import io.github.ratelimit.core.Limit;
import io.github.ratelimit.core.LimitOutcome;

import org.jspecify.annotations.Nullable;

/**
 * Token bucket, the twin of {@code token-bucket.lua}: state {@code [level, time]}, the level in units of
 * {@code period / gcd} per token, refilled by {@code capacity / gcd} units per microsecond. A stored time from the
 * future (the clock stepped back) refills nothing until the clock passes it again.
 */
final class LocalTokenBucket implements LocalAlgorithm {

	@Override
	public Step evaluate(long @Nullable [] state, Limit limit, long now, long permits, boolean consume) {
		long g = LocalAlgorithm.gcd(limit.capacity(), limit.periodMicros());
		long rate = limit.capacity() / g;
		long unit = limit.periodMicros() / g;
		long full = limit.capacity() * unit;
		long level = full;
		if (state != null) {
			long elapsed = Math.max(0, now - state[1]);
			// compared before multiplying, so elapsed * rate stays below the missing units
			level = (elapsed >= LocalAlgorithm.ceilDiv(full - state[0], rate)) ? full : state[0] + elapsed * rate;
		}
		long need = permits * unit;
		boolean allowed = level >= need;
		long after = (allowed && consume) ? level - need : level;
		long remaining = after / unit;
		long retry = allowed ? 0 : LocalAlgorithm.ceilDiv(need - level, rate);
		long reset = LocalAlgorithm.ceilDiv(full - after, rate);
		long next = (remaining == limit.capacity()) ? 0 : LocalAlgorithm.ceilDiv((remaining + 1) * unit - after, rate);
		LimitOutcome outcome = new LimitOutcome(limit, allowed, remaining, retry, reset, next);
		return new Step(outcome, new long[] { after, now }, now + reset);
	}

}
