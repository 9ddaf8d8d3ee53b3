package io.github.ratelimit.redis;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Chooses Lettuce's native path for Lettuce's connection factory; loaded only when Lettuce is on the classpath.
 */
final class LettuceScripts {

	private LettuceScripts() {
	}

	static @Nullable ScriptExecutor executor(RedisConnectionFactory connectionFactory, Duration timeout) {
		return (connectionFactory instanceof LettuceConnectionFactory lettuce)
				? new LettuceScriptExecutor(lettuce, timeout) : null;
	}

}
