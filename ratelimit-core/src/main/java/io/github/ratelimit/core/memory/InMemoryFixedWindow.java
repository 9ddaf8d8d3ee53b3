package io.github.ratelimit.core.memory;

import io.github.ratelimit.core.Limit;
import io.github.ratelimit.core.LimitDecision;

import org.jspecify.annotations.Nullable;

/**
 * Fixed window, the twin of {@code fixed-window.lua}: state {@code [window index, count]}, windows aligned to the
 * epoch. A stored window from the future (the clock stepped back) stays the current one until it ends.
 */
final class InMemoryFixedWindow implements InMemoryAlgorithm {

	@Override
	public Step evaluate(long @Nullable [] state, Limit limit, long now, long permits, boolean consume) {
		long period = limit.periodMicros();
		long window = InMemoryAlgorithm.floorDiv(now, period);
		long count = 0;
		if (state != null && state[0] >= window) {
			window = state[0];
			count = state[1];
		}
		long left = (window + 1) * period - now;
		boolean allowed = count <= limit.capacity() - permits;
		long after = (allowed && consume) ? count + permits : count;
		LimitDecision outcome = new LimitDecision(limit, allowed, limit.capacity() - after, allowed ? 0 : left,
				(after > 0) ? left : 0, (after > 0) ? left : 0);
		return new Step(outcome, new long[] { window, after }, now + left);
	}

	/**
	 * Gives leased permits back to the window they were taken from, the twin of {@code fixed-window.lua}'s return:
	 * when the stored window is the one {@code takenAt} falls in, its count goes down by {@code permits}, not below 0.
	 * @param state the limit's live state
	 * @param limit the limit
	 * @param takenAt when the permits were taken, in microseconds
	 * @param permits the permits given back
	 * @return the state to keep: a new one, or {@code state} when its window is another
	 */
	static long[] giveBack(long[] state, Limit limit, long takenAt, long permits) {
		if (state[0] != InMemoryAlgorithm.floorDiv(takenAt, limit.periodMicros())) {
			return state;
		}
		return new long[] { state[0], Math.max(0, state[1] - permits) };
	}

}
