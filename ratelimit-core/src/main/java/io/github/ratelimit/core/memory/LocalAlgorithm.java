package io.github.ratelimit.core.memory;

import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.core.Limit;
import io.github.ratelimit.core.LimitOutcome;

import org.jspecify.annotations.Nullable;

/**
 * One algorithm's arithmetic on one limit's state, in integer microseconds: the in-memory twin of its Lua script.
 */
interface LocalAlgorithm {

	/**
	 * Evaluates one limit for a request.
	 * @param state the limit's state, {@code null} when fresh; never modified
	 * @param limit the limit
	 * @param now the current time in microseconds
	 * @param permits the permits asked for
	 * @param consume whether the outcome should describe the state after taking the permits
	 * @return the outcome and the state to keep if the request is admitted
	 */
	Step evaluate(long @Nullable [] state, Limit limit, long now, long permits, boolean consume);

	/**
	 * The outcome of one limit and, when admitted, the state to store and until when it matters.
	 *
	 * @param outcome the limit's outcome
	 * @param state the state after taking the permits
	 * @param expiresAt the time, in microseconds, from which the state equals a fresh one
	 */
	record Step(LimitOutcome outcome, long[] state, long expiresAt) {
	}

	static LocalAlgorithm of(Algorithm algorithm) {
		return switch (algorithm) {
			case TOKEN_BUCKET -> new LocalTokenBucket();
			case GCRA -> new LocalGcra();
			case FIXED_WINDOW -> new LocalFixedWindow();
			case SLIDING_WINDOW -> new LocalSlidingWindow();
			case SLIDING_LOG -> new LocalSlidingLog();
		};
	}

	static long floorDiv(long a, long b) {
		return Math.floorDiv(a, b);
	}

	static long ceilDiv(long a, long b) {
		return -Math.floorDiv(-a, b);
	}

	static long gcd(long a, long b) {
		while (b != 0) {
			long t = a % b;
			a = b;
			b = t;
		}
		return a;
	}

}
