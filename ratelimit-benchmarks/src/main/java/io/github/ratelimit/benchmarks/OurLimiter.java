package io.github.ratelimit.benchmarks;

import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.core.Policy;
import io.github.ratelimit.core.RateLimiter;

/**
 * Our Redis backend's limiter of one policy ({@link OurBackend}: one native connection shared by every thread, so
 * Lettuce pipelines their commands). Started (connected, scripts loaded) once constructed.
 */
final class OurLimiter implements Contender {

	/** The namespace of every key the benchmarks write, as the starter's default. */
	static final String KEY_PREFIX = "ratelimit";

	/** The policy name of the decision benchmarks. */
	static final String POLICY = "api";

	/**
	 * A limit the load never reaches (a client gets a few hundred decisions in a whole run) and whose keys outlive
	 * the whole run (each permit taken keeps a key for 86.4 s), so decisions read and update existing state, as for
	 * clients that keep coming.
	 */
	static final String LIMIT = "100000/100d";

	/**
	 * The decision benchmarks' limit for an algorithm: {@link #LIMIT}, except where the algorithm's bounds refuse it
	 * ({@code sliding-window}: capacity x period within 2^53, so {@code 100000/1d}, whose keys still outlive the run;
	 * {@code sliding-log}: at most 500 permits, so {@code 500/100d}).
	 * @param algorithm the algorithm
	 * @return the limit
	 */
	static String limit(Algorithm algorithm) {
		return switch (algorithm) {
			case SLIDING_WINDOW -> "100000/1d";
			case SLIDING_LOG -> "500/100d";
			default -> LIMIT;
		};
	}

	private final OurBackend backend;

	private final RateLimiter limiter;

	private final String[] clients;

	OurLimiter(OwnRedis redis, Algorithm algorithm) {
		this(redis, policy(algorithm, limit(algorithm)));
	}

	OurLimiter(OwnRedis redis, Policy policy) {
		this.backend = new OurBackend(redis);
		this.limiter = this.backend.backend().create(policy);
		this.clients = clients();
	}

	@Override
	public boolean decide(int client) {
		return this.limiter.tryAcquire(this.clients[client]).allowed();
	}

	@Override
	public void close() {
		this.backend.close();
	}

	@Override
	public String toString() {
		return "ours, " + this.limiter.policy().algorithm().id();
	}

	static Policy policy(Algorithm algorithm, String limit) {
		return Policy.of(POLICY, algorithm, limit);
	}

	/**
	 * Client keys shaped like IPv4 addresses, the default key strategy's.
	 * @return one key per client
	 */
	static String[] clients() {
		String[] clients = new String[DecisionLoad.KEYS];
		for (int i = 0; i < clients.length; i++) {
			clients[i] = "10.0." + (i / 256) + "." + (i % 256);
		}
		return clients;
	}

}
