package io.github.ratelimit.core.memory;

import io.github.ratelimit.core.Limit;
import io.github.ratelimit.core.LimitOutcome;

import org.jspecify.annotations.Nullable;

/**
 * Sliding window, the twin of {@code sliding-window.lua}: state {@code [window index, current, previous]}; the
 * previous window's count is weighted by the share of it still inside the last period.
 */
final class LocalSlidingWindow implements LocalAlgorithm {

	@Override
	public Step evaluate(long @Nullable [] state, Limit limit, long now, long permits, boolean consume) {
		long capacity = limit.capacity();
		long period = limit.periodMicros();
		long window = LocalAlgorithm.floorDiv(now, period);
		long elapsed = now - window * period;
		long current = 0;
		long previous = 0;
		if (state != null && state[0] == window) {
			current = state[1];
			previous = state[2];
		}
		else if (state != null && state[0] == window - 1) {
			previous = state[1];
		}
		long weighted = Math.multiplyExact(previous, period - elapsed);
		long budget = Math.multiplyExact(capacity, period);
		boolean allowed = weighted + Math.multiplyExact(current + permits, period) <= budget;
		long after = (allowed && consume) ? current + permits : current;
		long retry = 0;
		if (!allowed) {
			retry = (current + permits <= capacity)
					? roomAt(previous, capacity - current - permits, period) - elapsed
					: (period - elapsed) + roomAt(current, capacity - permits, period);
			retry = Math.max(1, retry);
		}
		long reset = (after > 0) ? (period - elapsed) + period : (previous > 0) ? period - elapsed : 0;
		long remaining = Math.max(0, LocalAlgorithm.floorDiv(budget - weighted - after * period, period));
		LimitOutcome outcome = new LimitOutcome(limit, allowed, remaining, retry, reset, allowed ? reset : retry);
		return new Step(outcome, new long[] { window, after, previous }, now + reset);
	}

	/**
	 * The time into a window at which {@code count} requests of the window before, weighted, leave room for
	 * {@code room} more.
	 */
	private static long roomAt(long count, long room, long period) {
		return (count == 0) ? 0 : Math.max(0, period - LocalAlgorithm.floorDiv(room * period, count));
	}

}
