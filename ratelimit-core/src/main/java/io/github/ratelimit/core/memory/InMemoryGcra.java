package io.github.ratelimit.core.memory;

import io.github.ratelimit.core.Limit;
import io.github.ratelimit.core.LimitDecision;
import org.jspecify.annotations.Nullable;

/**
 * GCRA, the twin of {@code gcra.lua}: state {@code [tat, fraction]}, the theoretical arrival time in microseconds
 * plus a fraction in ticks of {@code 1 / (capacity / gcd)} microseconds. Waits are computed from how far the TAT is
 * ahead of now, so a TAT from the future (the clock stepped back) reads as an empty bucket and its waits stay exact
 * without multiplying the step. A reservation may push the TAT up to {@link InMemoryAlgorithm#debt one debt} beyond a
 * period ahead.
 */
final class InMemoryGcra implements InMemoryAlgorithm.Reserving {

	@Override
	public Step decide(long @Nullable [] state, Limit limit, long now, long permits, boolean consume, long maxWait,
			long due) {
		long g = InMemoryAlgorithm.gcd(limit.capacity(), limit.periodMicros());
		long rate = limit.capacity() / g;
		long interval = limit.periodMicros() / g;
		long window = limit.capacity() * interval;
		long period = limit.periodMicros();
		long debt = InMemoryAlgorithm.debt(window, rate, period);
		long ahead = 0;
		long fraction = 0;
		if (state != null && state[0] >= now) {
			ahead = state[0] - now;
			fraction = state[1];
		}
		// the ticks of the burst in use, beyond it when in debt; a TAT further ahead than any debt reaches is all debt
		long used = (ahead >= period + debt) ? window + debt * rate : ahead * rate + fraction;
		long need = permits * interval;
		boolean free = used <= window - need;
		long retry = free ? 0 : ahead + InMemoryAlgorithm.ceilDiv(fraction + need - window, rate);
		// a reservation also admits permits due within its wait and the debt; retry is then when they are due
		boolean allowed = free || retry <= Math.min(maxWait, debt);
		if (allowed && consume) {
			// taken as at now + due: from a TAT no earlier than then
			long after = Math.max(used, due * rate) + need;
			ahead = after / rate;
			fraction = after - ahead * rate;
			used = after;
		}
		long remaining = Math.max(0, InMemoryAlgorithm.floorDiv(window - used, interval));
		long reset = ahead + InMemoryAlgorithm.ceilDiv(fraction, rate);
		long next = (remaining == limit.capacity()) ? 0
				: ahead + InMemoryAlgorithm.ceilDiv(fraction + (remaining + 1) * interval - window, rate);
		LimitDecision outcome = new LimitDecision(limit, allowed, remaining, retry, reset, next);
		return new Step(outcome, new long[] { now + ahead, fraction }, now + reset);
	}

}
