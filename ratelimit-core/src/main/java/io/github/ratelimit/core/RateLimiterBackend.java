package io.github.ratelimit.core;

import java.util.concurrent.CompletionStage;

import org.jspecify.annotations.Nullable;

/**
 * Where rate limit state lives: creates the {@link RateLimiter} of a policy.
 */
public interface RateLimiterBackend {

	/**
	 * Creates the limiter of a policy. Limiters of the same policy share state, within the process for the in-memory
	 * backend, across every process for Redis.
	 * @param policy the policy
	 * @return its limiter
	 */
	RateLimiter create(Policy policy);

	/**
	 * A short name of this backend, such as {@code redis} or {@code in-memory}.
	 * @return the name
	 */
	String name();

	/**
	 * Checks that the backend decides: one bounded call on the path decisions take (for Redis, a script call that
	 * writes, so that a Redis refusing scripts or writes is found out although it answers a PING).
	 * @throws RuntimeException when it does not
	 */
	default void check() {
	}

	/**
	 * Whether an error thrown by this backend's limiters (or by {@link #check()}) means the backend itself failed,
	 * such as a lost connection, a timeout or an error reply of the server, rather than something wrong with one
	 * request. Only such failures may count towards opening a circuit breaker. The in-memory backend never fails.
	 * Each failed call fails with an error object of its own: a circuit breaker takes the failures of requests that
	 * share one error object for one call's ({@code CircuitBreaker#onFailure}).
	 * @param error the error, possibly wrapped in a {@link java.util.concurrent.CompletionException}
	 * @return whether the backend failed
	 */
	default boolean isBackendFailure(Throwable error) {
		return false;
	}

	/**
	 * Whether an error means the backend did not answer in time: the call may still have been carried out (and
	 * consumed permits) after the caller stopped waiting.
	 * @param error the error, possibly wrapped in a {@link java.util.concurrent.CompletionException}
	 * @return whether the call timed out
	 */
	default boolean isTimeout(Throwable error) {
		return false;
	}

	/**
	 * The decision a backend may still give to a call of {@link RateLimiter#tryAcquireAsync(String, long)} that timed
	 * out ({@link #isTimeout}): its answer, read when it comes after all (the call was carried out, and an admission
	 * consumed permits), for a caller that stopped waiting to learn what its failure mode stood in for.
	 * @param error the decision's failure, possibly wrapped in a {@link java.util.concurrent.CompletionException}
	 * @return the late decision, completing when the backend answers (on the thread of its client, which must not be
	 * blocked) and never if it does not; or {@code null} (always, by default) when no answer can come
	 */
	default @Nullable CompletionStage<Decision> lateDecision(Throwable error) {
		return null;
	}

	/**
	 * Whether a decision blocks the calling thread on I/O even through
	 * {@link RateLimiter#tryAcquireAsync(String, long)}, as with a blocking Redis client such as Jedis: reactive
	 * callers then make it on a thread that may block, never on an event loop. Deciding in memory does not block.
	 * @return {@code false} unless the backend's client blocks
	 */
	default boolean blocking() {
		return false;
	}

}
