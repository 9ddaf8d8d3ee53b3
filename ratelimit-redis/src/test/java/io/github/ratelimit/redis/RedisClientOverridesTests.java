package io.github.ratelimit.redis;

import java.time.Duration;
import java.util.List;

import io.github.ratelimit.core.Limit;
import io.github.ratelimit.core.override.ClientOverride;
import io.github.ratelimit.test.TestRedis;
import io.github.ratelimit.test.TestRedis.EmbeddedRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@link RedisClientOverrides} on a standalone Redis, and while that Redis is down.
 */
class RedisClientOverridesTests extends AbstractRedisClientOverridesTests {

	private static LettuceConnectionFactory connectionFactory;

	@BeforeAll
	static void connect() {
		connectionFactory = TestRedis.get().newConnectionFactory();
	}

	@AfterAll
	static void disconnect() {
		connectionFactory.destroy();
	}

	@Override
	protected RedisConnectionFactory connectionFactory() {
		return connectionFactory;
	}

	/**
	 * While Redis is down, each instance keeps deciding with the overrides it read last, and a write fails; once Redis
	 * answers again (empty: this one keeps nothing on disk), instances follow it again.
	 */
	@Test
	void whileRedisIsDownTheLastCopyStaysInForceAndWritesFail() {
		EmbeddedRedis redis = EmbeddedRedis.start(TestRedis.freePort());
		// a write while Redis is down fails once the client's command timeout is over
		LettuceConnectionFactory own = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration("127.0.0.1", redis.port()),
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(1)).build());
		own.afterPropertiesSet();
		own.start();
		RedisClientOverrides writer = new RedisClientOverrides(own, "down", Duration.ofHours(1), 10);
		RedisClientOverrides reader = new RedisClientOverrides(own, "down", POLL, 10);
		try {
			writer.start(PATIENCE);
			reader.start(PATIENCE);
			ClientOverride set = writer.set("orders", "acme", List.of(Limit.parse("1000/1m")), null, "alice");
			await("the reader finds the override", () -> reader.find("orders", "acme") != null);

			redis.stop();
			assertThatExceptionOfType(DataAccessException.class)
				.isThrownBy(() -> writer.set("orders", "other", List.of(Limit.parse("1/1m")), null, "alice"));
			assertThatExceptionOfType(DataAccessException.class).isThrownBy(() -> writer.remove("orders", "acme"));
			assertThat(reader.find("orders", "acme")).isEqualTo(set);
			assertThat(writer.find("orders", "acme")).isEqualTo(set);

			redis.restart();
			ClientOverride after = writer.set("orders", "other", List.of(Limit.parse("1/1m")), null, "alice");
			await("the reader follows Redis again", () -> after.equals(reader.find("orders", "other"))
					&& reader.find("orders", "acme") == null);
		}
		finally {
			writer.close();
			reader.close();
			own.destroy();
			redis.stop();
		}
	}

}
