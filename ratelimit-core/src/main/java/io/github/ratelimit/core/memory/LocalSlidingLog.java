package io.github.ratelimit.core.memory;

import java.util.Arrays;

import io.github.ratelimit.core.Limit;
import io.github.ratelimit.core.LimitOutcome;

import org.jspecify.annotations.Nullable;

/**
 * Sliding log, the twin of {@code sliding-log.lua}: state is the sorted times, in microseconds, of the permits
 * admitted; a permit logged at {@code t} counts while {@code now < t + period}.
 */
final class LocalSlidingLog implements LocalAlgorithm {

	private static final long[] EMPTY = new long[0];

	@Override
	public Step evaluate(long @Nullable [] state, Limit limit, long now, long permits, boolean consume) {
		long period = limit.periodMicros();
		long[] log = live((state != null) ? state : EMPTY, now - period);
		long count = log.length;
		boolean allowed = count + permits <= limit.capacity();
		long[] after = log;
		long retry = 0;
		if (allowed && consume) {
			after = Arrays.copyOf(log, Math.toIntExact(count + permits));
			Arrays.fill(after, log.length, after.length, now);
		}
		else if (!allowed && permits <= limit.capacity()) {
			retry = log[Math.toIntExact(count + permits - limit.capacity() - 1)] + period - now;
		}
		long reset = (after.length > 0) ? after[after.length - 1] + period - now : 0;
		LimitOutcome outcome = new LimitOutcome(limit, allowed, limit.capacity() - after.length, retry, reset,
				allowed ? reset : retry);
		return new Step(outcome, after, now + reset);
	}

	private static long[] live(long[] log, long horizon) {
		int first = 0;
		while (first < log.length && log[first] <= horizon) {
			first++;
		}
		return (first == 0) ? log : Arrays.copyOfRange(log, first, log.length);
	}

}
