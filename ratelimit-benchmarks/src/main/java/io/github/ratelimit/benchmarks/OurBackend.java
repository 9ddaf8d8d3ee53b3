package io.github.ratelimit.benchmarks;

import java.time.Duration;

import io.github.ratelimit.redis.RedisRateLimiterBackend;

import io.lettuce.core.resource.ClientResources;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Our Redis backend on a Lettuce connection factory as Spring Boot configures it: one native connection shared by
 * every thread, so Lettuce pipelines their commands. Started (connected, scripts loaded) once constructed.
 */
final class OurBackend implements AutoCloseable {

	private final LettuceConnectionFactory connectionFactory;

	private final RedisRateLimiterBackend backend;

	OurBackend(OwnRedis redis) {
		this(new LettuceConnectionFactory(new RedisStandaloneConfiguration(redis.host(), redis.port())));
	}

	/**
	 * Our backend on Lettuce resources of the caller's, which it does not shut down.
	 * @param redis the server
	 * @param resources the client's resources
	 */
	OurBackend(OwnRedis redis, ClientResources resources) {
		this(new LettuceConnectionFactory(new RedisStandaloneConfiguration(redis.host(), redis.port()),
				LettuceClientConfiguration.builder().clientResources(resources).build()));
	}

	private OurBackend(LettuceConnectionFactory connectionFactory) {
		this.connectionFactory = connectionFactory;
		this.connectionFactory.afterPropertiesSet();
		this.connectionFactory.start();
		this.backend = new RedisRateLimiterBackend(this.connectionFactory, OurLimiter.KEY_PREFIX,
				Duration.ofSeconds(5));
		try {
			this.backend.start();
		}
		catch (RuntimeException ex) {
			close();
			throw ex;
		}
	}

	RedisRateLimiterBackend backend() {
		return this.backend;
	}

	LettuceConnectionFactory connectionFactory() {
		return this.connectionFactory;
	}

	@Override
	public void close() {
		this.backend.close();
		this.connectionFactory.destroy();
	}

}
