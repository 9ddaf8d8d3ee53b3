package io.github.ratelimit.core.redis;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.connection.ReactiveRedisConnectionFactory;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.ReactiveRedisTemplate;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.data.redis.serializer.RedisSerializationContext;
import org.springframework.util.ClassUtils;

/**
 * The Redis commands of the backend, each bounded by the decision timeout whatever the client's own command timeout
 * says. With a reactive-capable connection factory (Lettuce) a command that has not answered in time is abandoned
 * with a {@link QueryTimeoutException}; with a blocking-only factory (Jedis) the client's timeout applies.
 */
final class RedisCalls {

	private static final boolean REACTOR_PRESENT = ClassUtils.isPresent("reactor.core.publisher.Mono",
			RedisCalls.class.getClassLoader());

	private final StringRedisTemplate blocking;

	private final @Nullable Bounded bounded;

	RedisCalls(RedisConnectionFactory connectionFactory, Duration timeout) {
		if (timeout.isNegative() || timeout.isZero()) {
			throw new IllegalArgumentException("Redis timeout must be positive, was " + timeout);
		}
		this.blocking = new StringRedisTemplate(connectionFactory);
		this.bounded = (REACTOR_PRESENT && connectionFactory instanceof ReactiveRedisConnectionFactory reactive)
				? new Bounded(reactive, timeout) : null;
	}

	List<Long> script(RedisScript<List<Long>> script, List<String> keys, String[] arguments) {
		return (this.bounded != null) ? this.bounded.script(script, keys, arguments)
				: this.blocking.execute(script, keys, (Object[]) arguments);
	}

	void delete(List<String> keys) {
		if (this.bounded != null) {
			this.bounded.delete(keys);
		}
		else {
			this.blocking.delete(keys);
		}
	}

	void ping() {
		if (this.bounded != null) {
			this.bounded.ping();
		}
		else {
			this.blocking.execute((RedisCallback<String>) RedisConnection::ping);
		}
	}

	/**
	 * Commands sent through the reactive API, so that waiting for them can be cut short.
	 */
	private static final class Bounded {

		private final ReactiveRedisTemplate<String, String> redis;

		private final Duration timeout;

		Bounded(ReactiveRedisConnectionFactory connectionFactory, Duration timeout) {
			this.redis = new ReactiveRedisTemplate<>(connectionFactory, RedisSerializationContext.string());
			this.timeout = timeout;
		}

		List<Long> script(RedisScript<List<Long>> script, List<String> keys, String[] arguments) {
			return await(this.redis.execute(script, keys, Arrays.asList(arguments)).next(), "EVALSHA");
		}

		void delete(List<String> keys) {
			await(this.redis.delete(keys.toArray(String[]::new)), "DEL");
		}

		void ping() {
			await(this.redis.getConnectionFactory().getReactiveConnection().ping(), "PING");
		}

		private <T> T await(Mono<T> call, String command) {
			T result;
			try {
				result = call.block(this.timeout);
			}
			catch (IllegalStateException ex) {
				// block(Duration) signals a timeout this way, having cancelled the call
				throw new QueryTimeoutException("Redis did not answer " + command
						+ " within the rate limit timeout of " + this.timeout.toMillis() + " ms", ex);
			}
			if (result == null) {
				throw new QueryTimeoutException("Redis gave no answer to " + command);
			}
			return result;
		}

	}

}
