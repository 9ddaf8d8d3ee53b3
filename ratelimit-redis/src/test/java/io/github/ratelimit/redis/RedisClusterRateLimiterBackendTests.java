package io.github.ratelimit.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.ratelimit.core.AbstractRateLimiterBackendTests;
import io.github.ratelimit.core.AbstractRateLimiterLeaseTests;
import io.github.ratelimit.core.StorageKeys;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.core.RateLimiterBackend;
import io.github.ratelimit.test.EmbeddedRedisCluster;
import io.github.ratelimit.test.ManualClock;
import io.github.ratelimit.test.TestRedis;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * The shared behavioural suite on a real 3-master Redis Cluster, through a {@link LettuceConnectionFactory} with a
 * {@code RedisClusterConfiguration}: the same assertions as in memory and on a standalone Redis.
 */
class RedisClusterRateLimiterBackendTests extends AbstractRateLimiterBackendTests {

	private static EmbeddedRedisCluster cluster;

	private static LettuceConnectionFactory connectionFactory;

	private static RedisRateLimiterBackend backend;

	private static StringRedisTemplate redis;

	@BeforeAll
	static void startCluster() {
		cluster = EmbeddedRedisCluster.shared();
		connectionFactory = cluster.newConnectionFactory();
		backend = new RedisRateLimiterBackend(connectionFactory, "ratelimit", TestRedis.TIMEOUT);
		redis = new StringRedisTemplate(connectionFactory);
	}

	@AfterAll
	static void stopCluster() {
		if (connectionFactory != null) {
			connectionFactory.destroy();
		}
	}

	@Test
	void checkPingsTheCluster() {
		assertThatNoException().isThrownBy(backend::check);
	}

	@Override
	protected RateLimiterBackend backend() {
		return backend;
	}

	@Override
	protected @Nullable Duration retention(RateLimiter limiter, String key) {
		List<Long> ttls = new StorageKeys("ratelimit", limiter.policy()).keys(key)
			.stream()
			.map((redisKey) -> redis.getExpire(redisKey, TimeUnit.MILLISECONDS))
			.toList();
		assertThat(ttls).as("every key has a TTL").doesNotContain(-1L);
		long longest = ttls.stream().mapToLong(Long::longValue).max().orElse(-2);
		return (longest < 0) ? null : Duration.ofMillis(longest);
	}

	@Override
	protected long clockMicros() {
		return RedisTime.micros(redis);
	}

	@Override
	protected RateLimiterBackend backendAt(ManualClock clock) {
		return SuppliedClockScripts.backend(redis, clock);
	}

	/**
	 * The shared lease suite on the same Redis Cluster.
	 */
	@Nested
	class Leases extends AbstractRateLimiterLeaseTests {

		@Override
		protected RateLimiterBackend backend() {
			return backend;
		}

		@Override
		protected RateLimiterBackend backendAt(ManualClock clock) {
			return SuppliedClockScripts.backend(redis, clock);
		}

		@Override
		protected long clockMicros() {
			return RedisTime.micros(redis);
		}

	}

}
