package io.github.ratelimit.core.memory;

import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.core.Limit;
import io.github.ratelimit.core.LimitDecision;

import org.jspecify.annotations.Nullable;

/**
 * One algorithm's arithmetic on one limit's state, in integer microseconds: the in-memory twin of its Lua script.
 */
interface InMemoryAlgorithm {

	/**
	 * Evaluates one limit for a request. Every algorithm may rely on {@code permits} being at most the limit's
	 * capacity (the limiter refuses larger requests before reading any state), so no product or sum it forms leaves
	 * the exact range that {@link io.github.ratelimit.core.Policy} validates.
	 * @param state the limit's state, {@code null} when fresh; never modified
	 * @param limit the limit
	 * @param now the current time in microseconds
	 * @param permits the permits asked for
	 * @param consume whether the outcome should describe the state after taking the permits
	 * @return the outcome and the state to keep if the request is admitted
	 */
	Step evaluate(long @Nullable [] state, Limit limit, long now, long permits, boolean consume);

	/**
	 * Evaluates one limit for a reservation ({@link io.github.ratelimit.core.RateLimiter#tryReserveAsync}): as
	 * {@link #evaluate}, except that permits due within {@code maxWait} and within the limit's {@linkplain #debt debt}
	 * are admitted too, the outcome's retry-after the time until they are due; when consuming, the permits are taken
	 * as at {@code now + due}, the time every limit of the policy has them (so that no limit's permits are taken
	 * before its state has them: a bucket full before then is taken from full). Only reservable algorithms are asked;
	 * the default throws.
	 * @param state the limit's state, {@code null} when fresh; never modified
	 * @param limit the limit
	 * @param now the current time in microseconds
	 * @param permits the permits asked for
	 * @param consume whether to take the permits when admitted; a reservation first asks every limit without
	 * consuming, for the time they are due
	 * @param maxWait the longest the caller waits, in microseconds, at least 1
	 * @param due when consuming, the time until every limit has the permits: the largest retry-after of the first
	 * evaluation
	 * @return the outcome and the state to keep if the request is admitted
	 */
	default Step reserve(long @Nullable [] state, Limit limit, long now, long permits, boolean consume, long maxWait,
			long due) {
		throw new UnsupportedOperationException(getClass().getSimpleName() + " cannot reserve");
	}

	/**
	 * An algorithm that reserves: one computation of a limit's outcome, a reservation's maximum wait and due time 0
	 * for every other decision.
	 */
	interface Reserving extends InMemoryAlgorithm {

		/**
		 * Evaluates one limit, as {@link #reserve} does.
		 * @param state the limit's state, {@code null} when fresh; never modified
		 * @param limit the limit
		 * @param now the current time in microseconds
		 * @param permits the permits asked for
		 * @param consume whether to take the permits when admitted
		 * @param maxWait the longest the caller waits, in microseconds; 0 for a decision that does not reserve
		 * @param due the time until the permits are taken, 0 for a decision that does not reserve
		 * @return the outcome and the state to keep if the request is admitted
		 */
		Step decide(long @Nullable [] state, Limit limit, long now, long permits, boolean consume, long maxWait,
				long due);

		@Override
		default Step evaluate(long @Nullable [] state, Limit limit, long now, long permits, boolean consume) {
			return decide(state, limit, now, permits, consume, 0, 0);
		}

		@Override
		default Step reserve(long @Nullable [] state, Limit limit, long now, long permits, boolean consume,
				long maxWait, long due) {
			return decide(state, limit, now, permits, consume, maxWait, due);
		}

	}

	/**
	 * How far into debt a reservation may run a bucket of {@code window} units refilled at {@code rate} units per
	 * microsecond, in microseconds: one period, or less when a full bucket and a period of debt would leave the
	 * integers held exactly (2<sup>53</sup>), as in the scripts.
	 * @param window the units of a full bucket, at most 2<sup>53</sup>
	 * @param rate the units refilled per microsecond
	 * @param period the period in microseconds, {@code window / rate}
	 * @return the debt in microseconds
	 */
	static long debt(long window, long rate, long period) {
		return Math.min(period, (Limit.EXACT_INTEGER_LIMIT - window) / rate);
	}

	/**
	 * Takes the permits once every limit of the policy admitted the request, inside the same atomic update as
	 * {@link #evaluate}. By default the state the step computed without touching the old one; an algorithm whose state
	 * is too large to copy per decision updates it in place here instead.
	 * @param state the limit's state as given to {@link #evaluate}
	 * @param step what {@link #evaluate} answered, with {@code consume} set
	 * @param limit the limit
	 * @param now the current time in microseconds
	 * @param permits the permits taken
	 * @return the state to keep
	 */
	default long[] admit(long @Nullable [] state, Step step, Limit limit, long now, long permits) {
		return step.state();
	}

	/**
	 * The most permits one request could take from this limit now: what a lease may be granted. By default the
	 * {@code remaining} of evaluating without consuming, which every leasable algorithm reports as exactly that.
	 * @param state the limit's state, {@code null} when fresh; never modified
	 * @param limit the limit
	 * @param now the current time in microseconds
	 * @return the permits available, at least 0
	 */
	default long available(long @Nullable [] state, Limit limit, long now) {
		return evaluate(state, limit, now, 1, false).outcome().remaining();
	}

	/**
	 * The outcome of one limit and, when admitted, the state to store and until when it matters.
	 *
	 * @param outcome the limit's outcome
	 * @param state the state after taking the permits, unless the algorithm takes them in {@link #admit}
	 * @param expiresAt the time, in microseconds, from which the state equals a fresh one
	 */
	record Step(LimitDecision outcome, long[] state, long expiresAt) {
	}

	static InMemoryAlgorithm of(Algorithm algorithm) {
		return switch (algorithm) {
			case TOKEN_BUCKET -> new InMemoryTokenBucket();
			case GCRA -> new InMemoryGcra();
			case FIXED_WINDOW -> new InMemoryFixedWindow();
			case SLIDING_WINDOW -> new InMemorySlidingWindow();
			case SLIDING_LOG -> new InMemorySlidingLog();
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
