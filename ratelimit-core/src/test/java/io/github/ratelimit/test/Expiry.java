package io.github.ratelimit.test;

import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.core.Limit;

/**
 * When a client's stored state stops mattering, from each algorithm's definition rather than from any backend's
 * code: what TTLs and retention are checked against, from below as well as from above.
 */
public final class Expiry {

	private Expiry() {
	}

	/**
	 * The time from which the state of one limit equals a fresh one, for a client that started fresh and was then
	 * admitted {@code permits} permits in all, the first at {@code first} and the last at {@code last}, within one
	 * window of the limit and without its bucket filling up in between: a token bucket (and GCRA) when it would be
	 * full again, a fixed window when its window ends, a sliding window when the window after it ends (its count
	 * still weighs on that one), a sliding log one period after its newest entry.
	 * @param algorithm the algorithm
	 * @param limit the limit
	 * @param permits the permits admitted in all
	 * @param first the time of the first admission, in microseconds
	 * @param last the time of the last admission, in microseconds
	 * @return the time, in microseconds, from which the state no longer matters
	 */
	public static long of(Algorithm algorithm, Limit limit, long permits, long first, long last) {
		long period = limit.periodMicros();
		long windowEnd = (Math.floorDiv(first, period) + 1) * period;
		return switch (algorithm) {
			case TOKEN_BUCKET, GCRA -> first - Math.floorDiv(-permits * period, limit.capacity());
			case FIXED_WINDOW -> windowEnd;
			case SLIDING_WINDOW -> windowEnd + period;
			case SLIDING_LOG -> last + period;
		};
	}

	/**
	 * The same for a client admitted once.
	 * @param algorithm the algorithm
	 * @param limit the limit
	 * @param permits the permits admitted
	 * @param at the time of the admission, in microseconds
	 * @return the time, in microseconds, from which the state no longer matters
	 */
	public static long of(Algorithm algorithm, Limit limit, long permits, long at) {
		return of(algorithm, limit, permits, at, at);
	}

}
