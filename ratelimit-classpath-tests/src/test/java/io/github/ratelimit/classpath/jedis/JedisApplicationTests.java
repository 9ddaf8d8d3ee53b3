package io.github.ratelimit.classpath.jedis;

import java.net.http.HttpResponse;
import java.util.Set;

import com.jayway.jsonpath.JsonPath;
import io.github.ratelimit.classpath.Classpath;
import io.github.ratelimit.classpath.RunningApp;
import io.github.ratelimit.core.RateLimiterBackend;
import io.github.ratelimit.test.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs in a JVM without Lettuce, with Jedis, and without Reactor (see this module's pom): a servlet application limits
 * on Redis through Spring Data Redis' blocking connections, {@code @RateLimited} methods returning futures included.
 */
class JedisApplicationTests {

	private static RunningApp app;

	@BeforeAll
	static void start() {
		TestRedis redis = TestRedis.get();
		app = RunningApp.start(JedisApplication.class, "spring.data.redis.host=" + redis.host(),
				"spring.data.redis.port=" + redis.port(), "spring.data.redis.client-type=jedis",
				"ratelimit.policies.hello.paths=/hello", "ratelimit.policies.hello.limits=3/1h",
				"management.endpoints.web.exposure.include=health,ratelimits",
				"management.endpoint.health.show-details=always");
	}

	@AfterAll
	static void stop() {
		app.close();
	}

	@Test
	void classpathShouldHaveJedisAndNoLettuceOrReactor() {
		Classpath.assertAbsent("io.lettuce.core.RedisClient", "reactor.core.publisher.Mono",
				"org.springframework.web.reactive.DispatcherHandler", "reactor.netty.http.server.HttpServer");
		Classpath.assertPresent("redis.clients.jedis.Jedis", "jakarta.servlet.http.HttpServletRequest");
	}

	@Test
	void backendShouldBeRedisThroughJedisAndHealthy() {
		assertThat(app.context().getBean(RedisConnectionFactory.class)).isInstanceOf(JedisConnectionFactory.class);
		assertThat(app.context().getBean(RateLimiterBackend.class).name()).isEqualTo("redis");
		HttpResponse<String> endpoint = app.get("/actuator/ratelimits");
		assertThat(endpoint.statusCode()).isEqualTo(200);
		assertThat((String) JsonPath.read(endpoint.body(), "$.backend")).isEqualTo("redis");
		HttpResponse<String> health = app.get("/actuator/health/rateLimiter");
		assertThat(health.statusCode()).isEqualTo(200);
		assertThat((String) JsonPath.read(health.body(), "$.status")).isEqualTo("UP");
		assertThat((String) JsonPath.read(health.body(), "$.details.backend")).isEqualTo("redis");
	}

	@Test
	void filterShouldRefuseTheFourthRequestWithRetryAfter() {
		for (int i = 0; i < 3; i++) {
			assertThat(app.get("/hello").statusCode()).isEqualTo(200);
		}
		HttpResponse<String> refused = app.get("/hello");
		assertThat(refused.statusCode()).isEqualTo(429);
		assertThat(refused.headers().firstValue("Retry-After")).isPresent();
		assertThat(keys("ratelimit:hello:*")).isNotEmpty();
	}

	@Test
	void annotatedMethodShouldBeRefusedAfterItsLimit() {
		assertThat(app.statuses("/report", 4)).containsExactly(200, 200, 200, 429);
		assertThat(keys("ratelimit:HelloController.report:*")).isNotEmpty();
	}

	@Test
	void annotatedMethodReturningAFutureShouldBeRefusedAfterItsLimit() {
		assertThat(app.statuses("/async-report", 3)).containsExactly(200, 200, 429);
		assertThat(keys("ratelimit:AsyncReportController.report:*")).isNotEmpty();
	}

	private static Set<String> keys(String pattern) {
		return app.context().getBean(StringRedisTemplate.class).keys(pattern);
	}

}
