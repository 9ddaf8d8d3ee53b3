package io.github.ratelimit.spring.web;

import io.github.ratelimit.redis.RedisRateLimiterBackend;
import io.github.ratelimit.spring.RateLimitRegistry;
import io.github.ratelimit.test.TestRedisProperties;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The rate limit filter on a real Redis.
 */
class RedisRateLimitFilterTests extends AbstractRateLimitFilterTests {

	@DynamicPropertySource
	static void redisProperties(DynamicPropertyRegistry registry) {
		TestRedisProperties.register(registry);
	}

	@Test
	void policiesShouldBeDecidedByRedis(@Autowired RateLimitRegistry registry) {
		assertThat(registry.backend()).isInstanceOf(RedisRateLimiterBackend.class);
	}

}
