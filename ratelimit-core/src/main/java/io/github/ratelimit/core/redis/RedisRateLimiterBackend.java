package io.github.ratelimit.core.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.core.Policy;
import io.github.ratelimit.core.RateLimitKeys;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.core.RateLimiterBackend;

import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Keeps rate limit state in Redis, through any Spring Data Redis {@link RedisConnectionFactory} (standalone,
 * Sentinel or Cluster). Each algorithm is one Lua script, loaded once and run with EVALSHA (EVAL when Redis answers
 * NOSCRIPT, which caches it again).
 */
public class RedisRateLimiterBackend implements RateLimiterBackend {

	/** How long a decision waits for Redis unless told otherwise. */
	public static final Duration DEFAULT_TIMEOUT = Duration.ofMillis(100);

	private final RedisCalls redis;

	private final String keyPrefix;

	private final Map<Algorithm, RedisScript<List<Long>>> scripts = new EnumMap<>(Algorithm.class);

	/**
	 * Creates a backend on a connection factory, whose decisions wait at most 100 ms for Redis.
	 * @param connectionFactory the Redis connections, shared with the application
	 * @param keyPrefix the namespace of every key, such as {@code ratelimit}
	 */
	public RedisRateLimiterBackend(RedisConnectionFactory connectionFactory, String keyPrefix) {
		this(connectionFactory, keyPrefix, DEFAULT_TIMEOUT);
	}

	/**
	 * Creates a backend on a connection factory.
	 * @param connectionFactory the Redis connections, shared with the application
	 * @param keyPrefix the namespace of every key, such as {@code ratelimit}
	 * @param timeout the longest a decision waits for Redis (with a reactive-capable factory such as Lettuce's);
	 * past it, the call fails with a {@link org.springframework.dao.QueryTimeoutException}
	 */
	public RedisRateLimiterBackend(RedisConnectionFactory connectionFactory, String keyPrefix, Duration timeout) {
		this.redis = new RedisCalls(connectionFactory, timeout);
		this.keyPrefix = RateLimitKeys.checkPrefix(keyPrefix);
		for (Algorithm algorithm : Algorithm.values()) {
			this.scripts.put(algorithm, script(algorithm));
		}
	}

	@Override
	public RateLimiter create(Policy policy) {
		return new RedisRateLimiter(policy, this.redis, this.scripts.get(policy.algorithm()),
				new RateLimitKeys(this.keyPrefix, policy));
	}

	@Override
	public String name() {
		return "redis";
	}

	@Override
	public void check() {
		this.redis.ping();
	}

	/**
	 * The script of an algorithm: {@code common.lua} followed by {@code <algorithm>.lua}, from this package.
	 * @param algorithm the algorithm
	 * @return its script
	 */
	@SuppressWarnings({ "unchecked", "rawtypes" })
	public static RedisScript<List<Long>> script(Algorithm algorithm) {
		String source = read("common.lua") + "\n" + read(algorithm.id() + ".lua");
		return (RedisScript) RedisScript.of(source, List.class);
	}

	private static String read(String name) {
		try {
			return new ClassPathResource(name, RedisRateLimiterBackend.class).getContentAsString(StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not read the Lua script " + name, ex);
		}
	}

}
