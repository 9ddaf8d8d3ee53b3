package io.github.ratelimit.core.memory;

import io.github.ratelimit.core.Limit;
import io.github.ratelimit.core.LimitDecision;

import org.jspecify.annotations.Nullable;

/**
 * Sliding window, the twin of {@code sliding-window.lua}: state {@code [window index, current, previous]}; the
 * previous window's count is weighted by the share of it still inside the last period. A stored window from the
 * future (the clock stepped back) stays the current one, its previous window weighted in full, until it begins.
 * <p>
 * Every product is at most {@code capacity * period}, which {@link io.github.ratelimit.core.Policy} bounds by
 * 2<sup>53</sup>: sums are never formed, sides are compared instead.
 */
final class InMemorySlidingWindow implements InMemoryAlgorithm {

	@Override
	public Step evaluate(long @Nullable [] state, Limit limit, long now, long permits, boolean consume) {
		long capacity = limit.capacity();
		long period = limit.periodMicros();
		long window = InMemoryAlgorithm.floorDiv(now, period);
		long current = 0;
		long previous = 0;
		if (state != null && state[0] >= window) {
			window = state[0];
			current = state[1];
			previous = state[2];
		}
		else if (state != null && state[0] == window - 1) {
			previous = state[1];
		}
		// negative while a window from the future has not begun
		long offset = now - window * period;
		long weighted = previous * (period - Math.max(0, offset));
		boolean allowed = current <= capacity - permits && weighted <= (capacity - current - permits) * period;
		long retry = allowed ? 0 : wait(current, previous, permits, capacity, period, offset);
		long after = (allowed && consume) ? current + permits : current;
		long remaining = Math.max(0, InMemoryAlgorithm.floorDiv((capacity - after) * period - weighted, period));
		long reset = (after > 0) ? (period - offset) + period : (previous > 0) ? period - offset : 0;
		long next = (remaining == capacity) ? 0 : wait(after, previous, remaining + 1, capacity, period, offset);
		LimitDecision outcome = new LimitDecision(limit, allowed, remaining, retry, reset, next);
		return new Step(outcome, new long[] { window, after, previous }, now + reset);
	}

	/**
	 * The time from now until the window's counts leave room for {@code permits}: within this window once the
	 * previous one's weight has shrunk enough, or else in the next, once this one's weight has.
	 */
	private static long wait(long current, long previous, long permits, long capacity, long period, long offset) {
		return (current <= capacity - permits) ? roomAt(previous, capacity - current - permits, period) - offset
				: (period - offset) + roomAt(current, capacity - permits, period);
	}

	/**
	 * The time into a window at which {@code count} requests of the window before, weighted, leave room for
	 * {@code room} more: the least {@code t} with {@code count * (period - t) <= room * period}.
	 */
	private static long roomAt(long count, long room, long period) {
		return (count == 0) ? 0 : Math.max(0, period - InMemoryAlgorithm.floorDiv(room * period, count));
	}

}
