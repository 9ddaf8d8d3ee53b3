package io.github.ratelimit.core.memory;

import io.github.ratelimit.core.Limit;
import io.github.ratelimit.core.LimitOutcome;

import org.jspecify.annotations.Nullable;

/**
 * Token bucket, the twin of {@code token-bucket.lua}: state {@code [level, time]}, the level in units of
 * {@code period / gcd} per token, refilled by {@code capacity / gcd} units per microsecond.
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
			long missing = full - state[0];
			level = (elapsed >= LocalAlgorithm.ceilDiv(missing, rate)) ? full : state[0] + elapsed * rate;
		}
		long need = Math.multiplyExact(permits, unit);
		boolean allowed = level >= need;
		long after = (allowed && consume) ? level - need : level;
		long retry = allowed ? 0 : LocalAlgorithm.ceilDiv(need - level, rate);
		long reset = LocalAlgorithm.ceilDiv(full - after, rate);
		LimitOutcome outcome = new LimitOutcome(limit, allowed, LocalAlgorithm.floorDiv(after, unit), retry, reset,
				allowed ? reset : retry);
		return new Step(outcome, new long[] { after, now }, now + reset);
	}

}
