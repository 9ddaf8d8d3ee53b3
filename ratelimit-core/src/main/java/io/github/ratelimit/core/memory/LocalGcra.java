package io.github.ratelimit.core.memory;

import io.github.ratelimit.core.Limit;
import io.github.ratelimit.core.LimitOutcome;

import org.jspecify.annotations.Nullable;

/**
 * GCRA, the twin of {@code gcra.lua}: state {@code [tat, fraction]}, the theoretical arrival time in microseconds
 * plus a fraction in ticks of {@code 1 / (capacity / gcd)} microseconds.
 */
final class LocalGcra implements LocalAlgorithm {

	@Override
	public Step evaluate(long @Nullable [] state, Limit limit, long now, long permits, boolean consume) {
		long g = LocalAlgorithm.gcd(limit.capacity(), limit.periodMicros());
		long rate = limit.capacity() / g;
		long interval = limit.periodMicros() / g;
		long window = limit.capacity() * interval;
		long used = (state != null && state[0] >= now) ? (state[0] - now) * rate + state[1] : 0;
		long need = Math.multiplyExact(permits, interval);
		boolean allowed = used + need <= window;
		long after = (allowed && consume) ? used + need : used;
		long retry = allowed ? 0 : LocalAlgorithm.ceilDiv(used + need - window, rate);
		long reset = LocalAlgorithm.ceilDiv(after, rate);
		LimitOutcome outcome = new LimitOutcome(limit, allowed, LocalAlgorithm.floorDiv(window - after, interval),
				retry, reset, allowed ? reset : retry);
		long whole = LocalAlgorithm.floorDiv(after, rate);
		return new Step(outcome, new long[] { now + whole, after - whole * rate }, now + reset);
	}

}
