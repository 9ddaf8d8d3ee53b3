package io.github.ratelimit.core;

import java.util.concurrent.CompletionStage;

/**
 * Decides one policy for any number of clients, each identified by a key.
 * <p>
 * Implementations are thread-safe. A denied request consumes nothing from any limit.
 */
public interface RateLimiter {

	/**
	 * The policy this limiter decides.
	 * @return the policy
	 */
	Policy policy();

	/**
	 * Asks for one permit for {@code key}.
	 * @param key the client's key, not empty
	 * @return the decision
	 */
	default Decision tryAcquire(String key) {
		return tryAcquire(key, 1);
	}

	/**
	 * Asks for {@code permits} permits for {@code key}, granted from every limit or from none.
	 * @param key the client's key, not empty
	 * @param permits the request's cost, at least 1
	 * @return the decision; when {@code permits} exceeds a limit's capacity, a denial that is not
	 * {@linkplain Decision#satisfiable() satisfiable}
	 */
	Decision tryAcquire(String key, long permits);

	/**
	 * Asks for {@code permits} permits for {@code key} without blocking the calling thread where the backend's client
	 * allows it (in memory, and Redis through Lettuce; Redis through a blocking client such as Jedis decides before
	 * returning): the same decision as {@link #tryAcquire(String, long)}, for reactive and asynchronous callers.
	 * @param key the client's key, not empty
	 * @param permits the request's cost, at least 1
	 * @return the decision when made; completed exceptionally when the backend fails or does not answer in time
	 */
	CompletionStage<Decision> tryAcquireAsync(String key, long permits);

	/**
	 * Reads the state of {@code key} without consuming anything: the decision one permit would get now.
	 * @param key the client's key, not empty
	 * @return the decision for one permit, nothing consumed
	 */
	Decision peek(String key);

	/**
	 * Forgets every limit's state for {@code key}, so its next request starts from full capacity.
	 * @param key the client's key, not empty
	 */
	void reset(String key);

}
