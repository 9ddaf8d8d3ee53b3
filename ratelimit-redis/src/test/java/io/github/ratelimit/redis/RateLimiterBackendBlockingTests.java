package io.github.ratelimit.redis;

import java.time.Duration;
import java.util.List;

import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.core.LeaseGrant;
import io.github.ratelimit.core.Limit;
import io.github.ratelimit.core.Policy;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.core.lease.LeaseSettings;
import io.github.ratelimit.core.lease.LeasedRateLimiter;
import io.github.ratelimit.core.memory.InMemoryRateLimiterBackend;
import io.github.ratelimit.test.TestRedis;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which backends block the thread that decides, which tells a reactive caller whether to move decisions off its event
 * loop: Redis through Jedis does, Redis through Lettuce (its async API) and the in-memory backend do not. Each still
 * decides, leases and takes leased permits back on a real Redis.
 */
class RateLimiterBackendBlockingTests {

	private static final Policy POLICY = Policy.of("blocking", Algorithm.TOKEN_BUCKET, "2/1h");

	@Test
	void redisThroughLettuceShouldNotBlock() {
		LettuceConnectionFactory connectionFactory = TestRedis.get().newConnectionFactory();
		try {
			assertBlockingAndDeciding(connectionFactory, false);
		}
		finally {
			connectionFactory.destroy();
		}
	}

	@Test
	void redisThroughJedisShouldBlock() {
		TestRedis redis = TestRedis.get();
		JedisConnectionFactory connectionFactory = new JedisConnectionFactory(
				new RedisStandaloneConfiguration(redis.host(), redis.port()));
		connectionFactory.afterPropertiesSet();
		connectionFactory.start();
		try {
			assertBlockingAndDeciding(connectionFactory, true);
		}
		finally {
			connectionFactory.destroy();
		}
	}

	@Test
	void inMemoryShouldNotBlock() {
		assertThat(new InMemoryRateLimiterBackend().blocking()).isFalse();
	}

	private static void assertBlockingAndDeciding(RedisConnectionFactory connectionFactory, boolean blocking) {
		try (RedisRateLimiterBackend backend = new RedisRateLimiterBackend(connectionFactory,
				"blocking-" + blocking + "-" + System.nanoTime(), TestRedis.TIMEOUT)) {
			backend.start();
			assertThat(backend.blocking()).isEqualTo(blocking);
			RateLimiter limiter = backend.create(POLICY);
			// its limiters say so too: a leased limiter renews ahead on the request's thread only when they do not
			assertThat(limiter.blocking()).isEqualTo(blocking);
			assertThat(new LeasedRateLimiter(limiter, new LeaseSettings(10, true, Duration.ofSeconds(1))).blocking())
				.isEqualTo(blocking);
			assertThat(limiter.tryAcquire("client").allowed()).isTrue();
			// a window begun at the test, so the permits go back into the window they were leased from
			Limit limit = RedisTime.startedWindow(new StringRedisTemplate(connectionFactory), "10/1h");
			RateLimiter window = backend.create(new Policy("blocking-lease", Algorithm.FIXED_WINDOW, List.of(limit)));
			LeaseGrant grant = window.tryLeaseAsync("client", 1, 4).toCompletableFuture().join();
			assertThat(grant.granted()).isEqualTo(4);
			assertThat(window.returnLeasedAsync("client", grant, 3).toCompletableFuture().join()).isEqualTo(3);
			assertThat(window.peek("client").remaining()).isEqualTo(9);
		}
	}

}
