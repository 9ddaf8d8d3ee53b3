package io.github.ratelimit.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.Limit;
import io.github.ratelimit.core.Policy;
import io.github.ratelimit.core.StorageKeys;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.core.RateLimiterBackend;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.dao.InvalidDataAccessApiUsageException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.util.ClassUtils;

/**
 * Keeps rate limit state in Redis, through any Spring Data Redis {@link RedisConnectionFactory} (standalone,
 * Sentinel or Cluster). Each algorithm is one Lua script, run with EVALSHA (EVAL when Redis answers NOSCRIPT, which
 * caches it again).
 * <p>
 * With Lettuce's connection factory, decisions go straight to Lettuce's native async API and wait at most the
 * decision timeout; {@link #start()} connects and loads every script on every node, and they are loaded again after
 * every reconnection. With another factory (Jedis), decisions use Spring Data Redis' blocking connections, bounded
 * by the client's own timeout.
 */
public class RedisRateLimiterBackend implements RateLimiterBackend, AutoCloseable {

	/** How long a decision waits for Redis unless told otherwise. */
	public static final Duration DEFAULT_TIMEOUT = Duration.ofMillis(100);

	/** The name of the policy whose limiter {@link #check()} runs, on a key of its own. */
	public static final String PROBE_POLICY = "ratelimit-health-check";

	private static final String PROBE_KEY = "probe";

	private static final boolean LETTUCE_PRESENT = ClassUtils.isPresent("io.lettuce.core.RedisClient",
			RedisRateLimiterBackend.class.getClassLoader());

	private final ScriptExecutor redis;

	private final String keyPrefix;

	private final RateLimiter probe;

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
	 * @param timeout the longest a decision waits for Redis (with Lettuce's factory); past it, the call fails with a
	 * {@link org.springframework.dao.QueryTimeoutException}
	 */
	public RedisRateLimiterBackend(RedisConnectionFactory connectionFactory, String keyPrefix, Duration timeout) {
		if (timeout.isNegative() || timeout.isZero()) {
			throw new IllegalArgumentException("Redis timeout must be positive, was " + timeout);
		}
		this.keyPrefix = StorageKeys.checkPrefix(keyPrefix);
		this.redis = executor(connectionFactory, timeout);
		this.probe = limiter(new Policy(PROBE_POLICY, Algorithm.GCRA, List.of(new Limit(1_000_000, Duration.ofSeconds(1)))));
	}

	/**
	 * Connects to Redis (on a Cluster, learns its topology) and loads every script on every node, so that the first
	 * decisions pay for neither. A Redis that cannot be reached is logged, not thrown: decisions then apply the
	 * failure mode until it answers.
	 */
	public void start() {
		this.redis.start(LuaScript.all());
	}

	@Override
	public RateLimiter create(Policy policy) {
		return limiter(policy);
	}

	private RateLimiter limiter(Policy policy) {
		return new RedisRateLimiter(policy, this.redis, LuaScript.of(policy.algorithm()),
				new StorageKeys(this.keyPrefix, policy));
	}

	@Override
	public String name() {
		return "redis";
	}

	/**
	 * Makes one decision on a reserved key ({@code <prefix>:}{@value #PROBE_POLICY}{@code :...}, expiring within a
	 * second) through the same script call, connection and timeout as every decision: a Redis that answers PING but
	 * refuses scripts or writes ({@code OOM command not allowed}, {@code READONLY}, {@code NOSCRIPT} that cannot be
	 * reloaded) fails it.
	 */
	@Override
	public void check() {
		this.probe.tryAcquire(PROBE_KEY);
	}

	/**
	 * Spring's {@link DataAccessException}s of the Redis client, into which every executor turns Lettuce's errors:
	 * connection failures, timeouts ({@link QueryTimeoutException}) and Redis' error replies
	 * ({@link org.springframework.data.redis.RedisSystemException}), but not a misuse of the API. A caller interrupted
	 * while it waited ({@link java.util.concurrent.CancellationException}) is not a failure of Redis.
	 */
	@Override
	public boolean isBackendFailure(Throwable error) {
		Throwable cause = unwrap(error);
		return cause instanceof DataAccessException && !(cause instanceof InvalidDataAccessApiUsageException);
	}

	@Override
	public boolean isTimeout(Throwable error) {
		return unwrap(error) instanceof QueryTimeoutException;
	}

	/**
	 * The decision of Redis' reply to a script call that timed out, read when it comes (on Lettuce's event loop);
	 * {@code null} with a blocking client (Jedis), whose calls end with their reply or their failure.
	 */
	@Override
	public @Nullable CompletionStage<Decision> lateDecision(Throwable error) {
		return (unwrap(error) instanceof LateReplyTimeoutException timeout) ? timeout.lateDecision() : null;
	}

	/**
	 * Whether decisions block their caller: with a blocking client (Jedis), whose calls Spring Data Redis makes
	 * synchronously; never with Lettuce.
	 */
	@Override
	public boolean blocking() {
		return this.redis.blocking();
	}

	/**
	 * Stops watching for reconnections and gives back the connection held for decisions.
	 */
	@Override
	public void close() {
		this.redis.close();
	}

	/**
	 * The script of an algorithm as Spring Data Redis runs it: {@code common.lua} followed by
	 * {@code <algorithm>.lua}, from this package.
	 * @param algorithm the algorithm
	 * @return its script
	 */
	@SuppressWarnings({ "unchecked", "rawtypes" })
	public static RedisScript<List<Long>> script(Algorithm algorithm) {
		return (RedisScript) RedisScript.of(LuaScript.of(algorithm).source(), List.class);
	}

	/**
	 * The arguments ({@code ARGV}) this backend sends with a policy's script: the permits, whether to consume (1|0),
	 * then the constants of each limit. For tools that call the scripts themselves.
	 * @param policy the policy
	 * @param permits the permits asked for
	 * @param consume whether to take them when admitted
	 * @return the arguments
	 */
	public static List<String> scriptArguments(Policy policy, long permits, boolean consume) {
		return Arrays.stream(new LimitArguments(policy).of(permits, consume))
			.map((argument) -> new String(argument, StandardCharsets.US_ASCII))
			.toList();
	}

	private static Throwable unwrap(Throwable error) {
		Throwable cause = error;
		while (cause instanceof CompletionException && cause.getCause() != null) {
			cause = cause.getCause();
		}
		return cause;
	}

	private static ScriptExecutor executor(RedisConnectionFactory connectionFactory, Duration timeout) {
		if (LETTUCE_PRESENT) {
			ScriptExecutor lettuce = LettuceScripts.executor(connectionFactory, timeout);
			if (lettuce != null) {
				return lettuce;
			}
		}
		return new TemplateScriptExecutor(connectionFactory);
	}

}
