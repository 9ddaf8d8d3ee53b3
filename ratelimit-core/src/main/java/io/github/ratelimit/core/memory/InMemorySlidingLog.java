package io.github.ratelimit.core.memory;

import io.github.ratelimit.core.Limit;
import io.github.ratelimit.core.LimitDecision;

import org.jspecify.annotations.Nullable;

/**
 * Sliding log, the twin of {@code sliding-log.lua}: the times, in microseconds, of the permits admitted; a permit
 * logged at {@code t} counts while {@code now < t + period}.
 * <p>
 * State {@code [head, size, times...]}: a ring of times in ascending order, oldest at {@code head}. It is read
 * without copying and updated in place by {@link #admit}, growing (by doubling, up to the capacity) only when full.
 * A permit is logged at the newest time already logged when the clock has stepped back behind it, so the log stays
 * in order and no permit expires earlier than the clock it was admitted by says.
 */
final class InMemorySlidingLog implements InMemoryAlgorithm {

	private static final int HEAD = 0;

	private static final int SIZE = 1;

	private static final int TIMES = 2;

	private static final int FIRST_SLOTS = 8;

	private static final long[] EMPTY = { 0, 0 };

	@Override
	public Step evaluate(long @Nullable [] state, Limit limit, long now, long permits, boolean consume) {
		long capacity = limit.capacity();
		long period = limit.periodMicros();
		long[] log = (state != null) ? state : EMPTY;
		int size = (int) log[SIZE];
		int expired = expired(log, size, now - period);
		long count = size - expired;
		boolean allowed = count <= capacity - permits;
		// refused with permits <= capacity: more than capacity - permits are logged, so that one exists
		long retry = allowed ? 0 : time(log, expired + (int) (count + permits - capacity - 1)) + period - now;
		long stamp = (size > 0) ? Math.max(now, time(log, size - 1)) : now;
		boolean taken = allowed && consume;
		long after = taken ? count + permits : count;
		long newest = taken ? stamp : (count > 0) ? time(log, size - 1) : now;
		long oldest = (count > 0) ? time(log, expired) : stamp;
		long reset = (after > 0) ? newest + period - now : 0;
		long next = (after > 0) ? oldest + period - now : 0;
		LimitDecision outcome = new LimitDecision(limit, allowed, capacity - after, retry, reset, next);
		return new Step(outcome, log, now + reset);
	}

	@Override
	public long[] admit(long @Nullable [] state, Step step, Limit limit, long now, long permits) {
		long[] log = (state != null && state.length > TIMES) ? state : new long[TIMES + slots(limit, permits, 0)];
		int size = (int) log[SIZE];
		int expired = expired(log, size, now - limit.periodMicros());
		long stamp = (size > 0) ? Math.max(now, time(log, size - 1)) : now;
		int slots = log.length - TIMES;
		log[HEAD] = (log[HEAD] + expired) % slots;
		size -= expired;
		if (size + permits > slots) {
			log = grown(log, size, slots(limit, permits, size));
			slots = log.length - TIMES;
		}
		for (int i = 0; i < permits; i++) {
			log[TIMES + (int) ((log[HEAD] + size + i) % slots)] = stamp;
		}
		log[SIZE] = size + permits;
		return log;
	}

	/** The number of logged permits that have expired, at the start of the ring: a binary search. */
	private static int expired(long[] log, int size, long horizon) {
		int low = 0;
		int high = size;
		while (low < high) {
			int middle = (low + high) >>> 1;
			if (time(log, middle) <= horizon) {
				low = middle + 1;
			}
			else {
				high = middle;
			}
		}
		return low;
	}

	private static long time(long[] log, int index) {
		int slots = log.length - TIMES;
		return log[TIMES + (int) ((log[HEAD] + index) % slots)];
	}

	private static int slots(Limit limit, long permits, int size) {
		long wanted = Math.max(FIRST_SLOTS, Long.highestOneBit(size + permits) << 1);
		return (int) Math.min(limit.capacity(), wanted);
	}

	private static long[] grown(long[] log, int size, int slots) {
		long[] grown = new long[TIMES + slots];
		for (int i = 0; i < size; i++) {
			grown[TIMES + i] = time(log, i);
		}
		grown[SIZE] = size;
		return grown;
	}

}
