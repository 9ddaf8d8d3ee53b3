package io.github.ratelimit.core.memory;

import io.github.ratelimit.core.Limit;
import io.github.ratelimit.core.LimitDecision;

import org.jspecify.annotations.Nullable;

/**
 * GCRA, the twin of {@code gcra.lua}: state {@code [tat, fraction]}, the theoretical arrival time in microseconds
 * plus a fraction in ticks of {@code 1 / (capacity / gcd)} microseconds. Waits are computed from how far the TAT is
 * ahead of now, so a TAT from the future (the clock stepped back) reads as an empty bucket and its waits stay exact
 * without multiplying the step.
 */
final class InMemoryGcra implements InMemoryAlgorithm {

	@Override
	public Step evaluate(long @Nullable [] state, Limit limit, long now, long permits, boolean consume) {
		long g = InMemoryAlgorithm.gcd(limit.capacity(), limit.periodMicros());
		long rate = limit.capacity() / g;
		long interval = limit.periodMicros() / g;
		long window = limit.capacity() * interval;
		long ahead = 0;
		long fraction = 0;
		if (state != null && state[0] >= now) {
			ahead = state[0] - now;
			fraction = state[1];
		}
		// the ticks of the burst in use; a TAT a whole period ahead or more leaves none
		long used = (ahead >= limit.periodMicros()) ? window : ahead * rate + fraction;
		long need = permits * interval;
		boolean allowed = used <= window - need;
		long retry = allowed ? 0 : ahead + InMemoryAlgorithm.ceilDiv(fraction + need - window, rate);
		if (allowed && consume) {
			long after = used + need;
			ahead = after / rate;
			fraction = after - ahead * rate;
			used = after;
		}
		long remaining = (window - used) / interval;
		long reset = ahead + InMemoryAlgorithm.ceilDiv(fraction, rate);
		long next = (remaining == limit.capacity()) ? 0
				: ahead + InMemoryAlgorithm.ceilDiv(fraction + (remaining + 1) * interval - window, rate);
		LimitDecision outcome = new LimitDecision(limit, allowed, remaining, retry, reset, next);
		return new Step(outcome, new long[] { now + ahead, fraction }, now + reset);
	}

}
