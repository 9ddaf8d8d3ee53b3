package io.github.ratelimit.redis;

import java.util.concurrent.TimeUnit;

import io.github.ratelimit.core.Limit;

import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Redis' own clock, for tests whose windows must not roll over while they run.
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
	 * Waits, if needed, until the current epoch-aligned window of the limit has at least {@code micros} left.
	 * @param redis the connection
	 * @param limit the limit whose windows count
	 * @param micros the time the test needs
	 */
	public static void awaitWindowWithAtLeast(StringRedisTemplate redis, Limit limit, long micros)
			throws InterruptedException {
		long now = micros(redis);
		long left = limit.periodMicros() - (now % limit.periodMicros());
		if (left < micros) {
			Thread.sleep(left / 1000 + 10);
		}
	}

}
