package io.github.ratelimit.test;

import java.util.List;
import java.util.Properties;

import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The scripts a Redis server has run since its statistics were last reset, from {@code INFO commandstats}.
 */
public final class ScriptCalls {

	private ScriptCalls() {
	}

	/**
	 * Counts the server's {@code EVALSHA} and {@code EVAL} calls.
	 * @param redis a template on the server
	 * @return the calls
	 */
	public static long of(StringRedisTemplate redis) {
		Properties stats = redis
			.execute((RedisCallback<Properties>) (connection) -> connection.serverCommands().info("commandstats"));
		long calls = 0;
		for (String command : List.of("cmdstat_evalsha", "cmdstat_eval")) {
			String line = (stats != null) ? stats.getProperty(command) : null;
			if (line != null) {
				calls += Long.parseLong(line.replaceAll("^calls=(\\d+),.*$", "$1"));
			}
		}
		return calls;
	}

}
