package io.github.ratelimit.benchmarks;

/**
 * A rate limiter under load: one decision for one client key, admitted or not. Public only so that the plain Lettuce
 * contender, which lives beside the backend's package-private script classes, can implement it.
 */
public interface Contender extends AutoCloseable {

	/**
	 * Decides one request of a client.
	 * @param client the client's index, below the number of keys
	 * @return whether it was admitted
	 */
	boolean decide(int client);

	@Override
	void close();

}
