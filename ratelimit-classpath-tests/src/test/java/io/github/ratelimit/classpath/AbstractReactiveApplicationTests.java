package io.github.ratelimit.classpath;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;

import com.jayway.jsonpath.JsonPath;
import io.github.ratelimit.test.TestRedis;
import io.github.ratelimit.test.blockhound.TestBlockHound;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import org.springframework.boot.web.context.reactive.ReactiveWebApplicationContext;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What every reactive scenario proves over real HTTP on Reactor Netty, with BlockHound installed in its JVM (a
 * blocking call on an event loop fails the request): the filter admits a policy's limit and then refuses with 429,
 * the rate limit headers and the problem body, deciding on Redis; so does a {@code @RateLimited} controller method
 * returning {@code Mono}, decided when the response subscribes to it; health and the {@code ratelimits} endpoint report
 * the Redis backend.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class AbstractReactiveApplicationTests {

	private final String keyPrefix = getClass().getSimpleName() + "-" + System.nanoTime();

	private RunningApp app;

	/**
	 * The scenario's application class.
	 * @return the application
	 */
	protected abstract Class<?> application();

	/**
	 * Properties the scenario adds to the common ones, such as its Redis client.
	 * @return {@code name=value} pairs
	 */
	protected abstract List<String> scenarioProperties();

	@BeforeAll
	void start() {
		TestBlockHound.install();
		TestRedis redis = TestRedis.get();
		List<String> properties = new ArrayList<>(List.of("spring.data.redis.host=" + redis.host(),
				"spring.data.redis.port=" + redis.port(), "ratelimit.key-prefix=" + this.keyPrefix,
				"ratelimit.policies.hello.paths=/hello", "ratelimit.policies.hello.limits=3/1h",
				"management.endpoints.web.exposure.include=health,ratelimits",
				"management.endpoint.health.show-details=always",
				// so that a 500 says which error it is
				"spring.web.error.include-exception=true", "spring.web.error.include-message=always"));
		properties.addAll(scenarioProperties());
		this.app = RunningApp.start(application(), properties.toArray(String[]::new));
	}

	@AfterAll
	void stop() {
		this.app.close();
	}

	protected RunningApp app() {
		return this.app;
	}

	@Test
	void applicationShouldBeReactive() {
		assertThat(this.app.context()).isInstanceOf(ReactiveWebApplicationContext.class);
	}

	@Test
	void blockingOnTheServersEventLoopShouldFailWithBlockHoundsError() {
		HttpResponse<String> blocking = this.app.get("/blocking");
		assertThat(blocking.statusCode()).isEqualTo(500);
		assertThat((String) JsonPath.read(blocking.body(), "$.exception"))
			.isEqualTo("reactor.blockhound.BlockingOperationError");
		assertThat((String) JsonPath.read(blocking.body(), "$.message"))
			.startsWith("Blocking call! java.lang.Thread.sleep");
	}

	@Test
	void filterShouldAdmitTheLimitThenRefuseWithTheProblemBody() {
		HttpResponse<String> first = this.app.get("/hello");
		assertThat(first.statusCode()).isEqualTo(200);
		assertThat(first.headers().firstValue("X-RateLimit-Remaining")).hasValue("2");
		assertThat(first.headers().firstValue("RateLimit-Policy")).hasValue("\"hello\";q=3;w=3600");
		assertThat(this.app.statuses("/hello", 2)).containsExactly(200, 200);
		Refusals.assertQuotaExceeded(this.app.get("/hello"), "hello", "/hello");
		assertThat(this.app.context().getBean(StringRedisTemplate.class).keys(this.keyPrefix + ":hello:*"))
			.isNotEmpty();
	}

	@Test
	void annotatedMonoMethodShouldAdmitTheLimitThenRefuseWithTheProblemBody() {
		assertThat(this.app.statuses("/report", 3)).containsExactly(200, 200, 200);
		Refusals.assertQuotaExceeded(this.app.get("/report"), "report", "/report");
		assertThat(this.app.context().getBean(StringRedisTemplate.class).keys(this.keyPrefix + ":report:*"))
			.isNotEmpty();
	}

	@Test
	void healthAndEndpointShouldReportTheRedisBackend() {
		HttpResponse<String> health = this.app.get("/actuator/health/rateLimiter");
		assertThat(health.statusCode()).isEqualTo(200);
		assertThat((String) JsonPath.read(health.body(), "$.status")).isEqualTo("UP");
		assertThat((String) JsonPath.read(health.body(), "$.details.backend")).isEqualTo("redis");
		HttpResponse<String> endpoint = this.app.get("/actuator/ratelimits");
		assertThat(endpoint.statusCode()).isEqualTo(200);
		assertThat((String) JsonPath.read(endpoint.body(), "$.backend")).isEqualTo("redis");
	}

}
