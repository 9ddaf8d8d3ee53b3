package io.github.ratelimit.classpath.noredis;

import java.net.http.HttpResponse;
import java.util.stream.Stream;

import com.jayway.jsonpath.JsonPath;
import io.github.ratelimit.autoconfigure.InvalidRateLimitConfigurationException;
import io.github.ratelimit.classpath.Classpath;
import io.github.ratelimit.classpath.RunningApp;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs in a JVM without Spring Data Redis, any Redis client or {@code ratelimit-redis} (see this module's pom): the
 * in-memory backend limits and reports healthy; without it, start-up stops with a sentence naming
 * {@code ratelimit.backend}.
 */
@ExtendWith(OutputCaptureExtension.class)
class NoRedisApplicationTests {

	@Test
	void classpathShouldLackEveryRedisLibrary() {
		Classpath.assertAbsent("org.springframework.data.redis.connection.RedisConnectionFactory",
				"org.springframework.data.keyvalue.core.KeyValueTemplate",
				"org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
				"io.lettuce.core.RedisClient", "redis.clients.jedis.Jedis",
				"io.github.ratelimit.redis.RedisRateLimiterBackend", "io.github.ratelimit.test.TestRedis");
		Classpath.assertPresent("jakarta.servlet.http.HttpServletRequest",
				"org.springframework.boot.health.contributor.HealthIndicator");
	}

	@Test
	void inMemoryBackendShouldLimitAndBeHealthy() {
		try (RunningApp app = RunningApp.start(NoRedisApplication.class, properties("ratelimit.backend=in-memory"))) {
			assertThat(app.statuses("/hello", 4)).containsExactly(200, 200, 200, 429);
			assertThat(app.statuses("/report", 4)).containsExactly(200, 200, 200, 429);
			HttpResponse<String> health = app.get("/actuator/health");
			assertThat(health.statusCode()).isEqualTo(200);
			assertThat(read(health, "$.status")).isEqualTo("UP");
			assertThat(read(health, "$.components.rateLimiter.status")).isEqualTo("UP");
			HttpResponse<String> rateLimiter = app.get("/actuator/health/rateLimiter");
			assertThat(rateLimiter.statusCode()).isEqualTo(200);
			assertThat(read(rateLimiter, "$.status")).isEqualTo("UP");
			assertThat(read(rateLimiter, "$.details.backend")).isEqualTo("in-memory");
			assertThat(read(app.get("/actuator/ratelimits"), "$.backend")).isEqualTo("in-memory");
		}
	}

	@Test
	void redisBackendWithoutRedisShouldStopStartUpNamingTheProperty(CapturedOutput output) {
		assertThat(RunningApp.startUpFailure(NoRedisApplication.class, properties()))
			.isInstanceOfSatisfying(InvalidRateLimitConfigurationException.class,
					(ex) -> assertThat(ex.getProperty()).isEqualTo("ratelimit.backend"));
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("Invalid rate limit configuration 'ratelimit.backend': the redis backend needs Spring Data Redis")
			.contains("Update 'ratelimit.backend': add spring-boot-starter-data-redis")
			.doesNotContain("NoClassDefFoundError")
			.doesNotContain("ClassNotFoundException");
	}

	private static String read(HttpResponse<String> response, String path) {
		return JsonPath.read(response.body(), path);
	}

	private static String[] properties(String... more) {
		return Stream.concat(Stream.of("ratelimit.policies.hello.paths=/hello", "ratelimit.policies.hello.limits=3/1h",
				"management.endpoints.web.exposure.include=health,ratelimits",
				"management.endpoint.health.show-details=always"), Stream.of(more))
			.toArray(String[]::new);
	}

}
