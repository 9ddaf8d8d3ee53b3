package io.github.ratelimit.spring.web.reactive;

import io.github.ratelimit.redis.RedisRateLimiterBackend;
import io.github.ratelimit.spring.RateLimitEnforcer;
import io.github.ratelimit.spring.RateLimitRegistry;
import io.github.ratelimit.test.TestRedisProperties;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The WebFlux filter on a real Redis, through Lettuce: decisions complete on Lettuce's event loop, under BlockHound.
 */
class RedisRateLimitWebFluxTests extends AbstractRateLimitWebFluxTests {

	@DynamicPropertySource
	static void redisProperties(DynamicPropertyRegistry registry) {
		TestRedisProperties.register(registry);
	}

	@Test
	void policiesShouldBeDecidedByRedisWithoutBlocking(@Autowired RateLimitRegistry registry,
			@Autowired RateLimitEnforcer enforcer) {
		assertThat(registry.backend()).isInstanceOf(RedisRateLimiterBackend.class);
		assertThat(enforcer.blocking()).isFalse();
	}

}
