package io.github.ratelimit.benchmarks;

import java.time.Duration;
import java.util.List;

import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.core.Policy;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.redis.RedisRateLimiterBackend;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Our Redis backend on a Lettuce connection factory as Spring Boot configures it: one native connection shared by
 * every thread, so Lettuce pipelines their commands. Connected, with its script loaded, once constructed.
 */
final class OurLimiter implements Contender {

	/**
	 * A limit the load never reaches (a client gets a few hundred decisions in a whole run), whose keys outlive the
	 * gap between two decisions of one client, so decisions read and update existing state as under real limits.
	 */
	static final String LIMIT = "100000/1d";

	/**
	 * The script arguments of one permit of {@link #LIMIT}, as our backend sends them, for redis-benchmark.
	 * @param algorithm the algorithm
	 * @return the arguments
	 */
	static List<String> scriptArguments(Algorithm algorithm) {
		return RedisRateLimiterBackend.scriptArguments(Policy.of("api", algorithm, LIMIT), 1, true);
	}

	private final LettuceConnectionFactory connectionFactory;

	private final RateLimiter limiter;

	private final String[] clients;

	OurLimiter(String host, int port, Algorithm algorithm) {
		this(host, port, algorithm, LIMIT);
	}

	OurLimiter(String host, int port, Algorithm algorithm, String limit) {
		this.connectionFactory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(host, port));
		this.connectionFactory.afterPropertiesSet();
		this.connectionFactory.start();
		this.limiter = new RedisRateLimiterBackend(this.connectionFactory, "ratelimit", Duration.ofSeconds(5))
			.create(Policy.of("api", algorithm, limit));
		this.clients = clients();
		decide(0);
	}

	@Override
	public boolean decide(int client) {
		return this.limiter.tryAcquire(this.clients[client]).allowed();
	}

	@Override
	public void close() {
		this.connectionFactory.destroy();
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
