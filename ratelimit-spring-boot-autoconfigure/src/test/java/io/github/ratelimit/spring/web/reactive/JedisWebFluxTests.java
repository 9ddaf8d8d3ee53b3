package io.github.ratelimit.spring.web.reactive;

import java.util.ArrayList;
import java.util.List;

import io.github.ratelimit.redis.RedisRateLimiterBackend;
import io.github.ratelimit.spring.RateLimitEnforcer;
import io.github.ratelimit.spring.RateLimitRegistry;
import io.github.ratelimit.test.Clients;
import io.github.ratelimit.test.TestRedisProperties;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.webtestclient.autoconfigure.AutoConfigureWebTestClient;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.reactive.server.WebTestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A WebFlux application on Jedis, a blocking Redis client: the filter decides on Reactor's bounded elastic scheduler,
 * never on Reactor Netty's event loop, so it limits exactly under BlockHound, and each exchange continues on its
 * connection's event loop once decided (it ended on the bounded elastic scheduler, every run, before
 * {@link ExchangeEventLoop} moved decisions made at once too).
 */
@SpringBootTest(classes = { WebFluxTestApplication.class, EventLoopEndings.class },
		webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { WebFluxTestApplication.REACTIVE, "spring.data.redis.client-type=jedis",
				"ratelimit.policies.hello.paths=/hello", "ratelimit.policies.hello.limits=3/1h" })
@AutoConfigureWebTestClient(timeout = "30s")
class JedisWebFluxTests {

	@DynamicPropertySource
	static void redisProperties(DynamicPropertyRegistry registry) {
		TestRedisProperties.register(registry);
	}

	@Test
	void decisionsShouldBeMadeByRedisThroughJedisOffTheEventLoop(@Autowired RedisConnectionFactory connectionFactory,
			@Autowired RateLimitRegistry registry, @Autowired RateLimitEnforcer enforcer) {
		assertThat(connectionFactory).isInstanceOf(JedisConnectionFactory.class);
		assertThat(registry.backend()).isInstanceOf(RedisRateLimiterBackend.class);
		assertThat(enforcer.blocking()).isTrue();
	}

	@Test
	void filterShouldLimitExactly(@Autowired WebTestClient client, @Autowired EventLoopEndings endings) {
		String address = Clients.newAddress();
		WebFluxRequests requests = new WebFluxRequests(client, address);
		List<Integer> statuses = new ArrayList<>();
		for (int i = 0; i < 5; i++) {
			statuses.add(WebFluxRequests.status(requests.get("/hello")));
		}
		assertThat(statuses).containsExactly(200, 200, 200, 429, 429);
		assertThat(endings.awayFromTheirEventLoop(address)).isEmpty();
	}

}
