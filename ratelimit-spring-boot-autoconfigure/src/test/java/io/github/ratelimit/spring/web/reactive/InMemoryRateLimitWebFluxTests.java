package io.github.ratelimit.spring.web.reactive;

import io.github.ratelimit.core.memory.InMemoryRateLimiterBackend;
import io.github.ratelimit.spring.RateLimitRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.ApplicationContext;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.test.context.TestPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The WebFlux filter on the in-memory backend, in an application without Redis.
 */
@TestPropertySource(properties = { "ratelimit.backend=in-memory",
		"spring.autoconfigure.exclude=org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration" })
class InMemoryRateLimitWebFluxTests extends AbstractRateLimitWebFluxTests {

	@Test
	void policiesShouldBeDecidedInMemoryWithoutRedis(@Autowired ApplicationContext context,
			@Autowired RateLimitRegistry registry) {
		assertThat(context.getBeanNamesForType(RedisConnectionFactory.class)).isEmpty();
		assertThat(registry.backend()).isInstanceOf(InMemoryRateLimiterBackend.class);
	}

}
