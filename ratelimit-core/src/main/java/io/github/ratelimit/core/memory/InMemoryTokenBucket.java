package io.github.ratelimit.core.memory;

import io.github.ratelimit.core.Limit;
import io.github.ratelimit.core.LimitDecision;
import org.jspecify.annotations.Nullable;

/**
 * Token bucket, the twin of {@code token-bucket.lua}: state {@code [level, time]}, the level in units of
 * {@code period / gcd} per token, refilled by {@code capacity / gcd} units per microsecond. A stored time from the
 * future (the clock stepped back) refills nothing until the clock passes it again. A reservation may take the level
 * below empty, by up to {@link InMemoryAlgorithm#debt one debt}'s refill.
 */
final class InMemoryTokenBucket implements InMemoryAlgorithm.Reserving {

	@Override
	public Step decide(long @Nullable [] state, Limit limit, long now, long permits, boolean consume, long maxWait,
			long due) {
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
		boolean free = level >= need;
		long retry = free ? 0 : gap + InMemoryAlgorithm.ceilDiv(need - level, rate);
		// a reservation also admits permits due within its wait and the debt (never across a clock stepped back);
		// retry is then when they are due
		boolean allowed = free || (gap == 0 && retry <= Math.min(maxWait,
				InMemoryAlgorithm.debt(full, rate, limit.periodMicros())));
		long after = level;
		if (allowed && consume) {
			// taken as at now + due: from a bucket no fuller than full then
			after = Math.min(level, full - due * rate) - need;
			gap = 0;
		}
		long remaining = Math.max(0, InMemoryAlgorithm.floorDiv(after, unit));
		long reset = gap + InMemoryAlgorithm.ceilDiv(full - after, rate);
		long next = (remaining == limit.capacity()) ? 0
				: gap + InMemoryAlgorithm.ceilDiv((remaining + 1) * unit - after, rate);
		LimitDecision outcome = new LimitDecision(limit, allowed, remaining, retry, reset, next);
		return new Step(outcome, new long[] { after, now }, now + reset);
	}

}
