package io.github.ratelimit.core;

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
	 * Checks that the backend answers, with one bounded round trip at most.
	 * @throws RuntimeException when it does not
	 */
	default void check() {
	}

}
