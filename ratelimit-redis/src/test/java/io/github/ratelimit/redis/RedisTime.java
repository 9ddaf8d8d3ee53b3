package io.github.ratelimit.redis;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.ratelimit.core.Limit;
import io.github.ratelimit.test.StartedWindow;
import io.github.ratelimit.test.TestRedis;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Redis' own clock, which decides every window, and windows begun on it at the test ({@link StartedWindow}), so that
 * no test's window ends while it runs.
 */
public final class RedisTime {

	private RedisTime() {
	}

	/**
	 * Redis' time in microseconds.
	 * @param redis the connection
	 * @return {@code TIME} in microseconds
	 */
	public static long micros(StringRedisTemplate redis) {
		Long micros = redis
			.execute((RedisCallback<Long>) (connection) -> connection.serverCommands().time(TimeUnit.MICROSECONDS));
		return micros;
	}

	/**
	 * Redis' time in microseconds, read on a connection of its own: for a test whose applications are not started
	 * yet.
	 * @param host the server's host
	 * @param port the server's port
	 * @return {@code TIME} in microseconds
	 */
	public static long micros(String host, int port) {
		LettuceConnectionFactory connectionFactory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(host, port));
		connectionFactory.afterPropertiesSet();
		connectionFactory.start();
		try {
			return micros(new StringRedisTemplate(connectionFactory));
		}
		finally {
			connectionFactory.destroy();
		}
	}

	/**
	 * The test Redis' ({@link TestRedis}) time in microseconds, on a connection this JVM keeps as it keeps the
	 * server: for a test whose applications are not started yet.
	 * @return {@code TIME} in microseconds
	 */
	public static long testRedisMicros() {
		return micros(TestRedisConnection.TEMPLATE);
	}

	/**
	 * A limit whose window began at the test on Redis' clock: {@link StartedWindow#begunAt(long, String)}.
	 * @param redis the connection
	 * @param limit the limit as written, such as {@code "10/1h"}
	 * @return the limit, whose window lasts at least the period written more
	 */
	public static Limit startedWindow(StringRedisTemplate redis, String limit) {
		return StartedWindow.begunAt(micros(redis), limit);
	}

	/**
	 * The limits of a multi-limit policy, each with a window begun at the test on Redis' clock.
	 * @param redis the connection
	 * @param limits the limits as written
	 * @return the limits, in the same order
	 */
	public static List<Limit> startedWindows(StringRedisTemplate redis, String... limits) {
		long now = micros(redis);
		return Arrays.stream(limits).map((limit) -> StartedWindow.begunAt(now, limit)).toList();
	}

	/**
	 * The connection to the test Redis, opened at its first use.
	 */
	private static final class TestRedisConnection {

		static final StringRedisTemplate TEMPLATE = new StringRedisTemplate(TestRedis.get().newConnectionFactory());

	}

}
