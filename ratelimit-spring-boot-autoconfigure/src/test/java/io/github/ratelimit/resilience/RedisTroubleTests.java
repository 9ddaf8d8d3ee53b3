package io.github.ratelimit.resilience;

import java.net.http.HttpResponse;
import java.util.UUID;

import io.github.ratelimit.core.Limit;
import io.github.ratelimit.redis.RedisTime;
import io.github.ratelimit.test.StartedWindow;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link AbstractRedisTroubleTests} on the servlet stack, and {@code @RateLimited} methods and the endpoint while
 * Redis is down.
 */
class RedisTroubleTests extends AbstractRedisTroubleTests {

	@Test
	void stoppingAnApplicationGivesAFixedWindowsUnusedLeasedPermitsBackToRedis() {
		// a window begun at the test, which both applications decide in
		Limit window = StartedWindow.begunAt(RedisTime.micros("127.0.0.1", redis.port()), "100/1h");
		String[] properties = { GENEROUS_TIMEOUT, "ratelimit.key-prefix=stopping-" + UUID.randomUUID(),
				"ratelimit.policies.hello.limits=" + window, "ratelimit.policies.hello.paths=/hello",
				"ratelimit.policies.hello.algorithm=fixed-window", "ratelimit.policies.hello.lease.enabled=true",
				"ratelimit.policies.hello.lease.batch=10", "ratelimit.policies.hello.lease.adaptive=false",
				"ratelimit.policies.hello.lease.max-age=1h" };
		try (RunningApp first = RunningApp.start(redis.port(), properties)) {
			assertThat(first.get("/hello").statusCode()).isEqualTo(200);
			assertThat(first.get("/actuator/ratelimits/hello/127.0.0.1").body()).contains("\"remaining\":90");
		}
		try (RunningApp second = RunningApp.start(redis.port(), properties)) {
			assertThat(second.get("/actuator/ratelimits/hello/127.0.0.1").body())
				.as("the 9 permits left in the stopped application's lease are back").contains("\"remaining\":99");
		}
	}

	@Test
	void rateLimitedMethodsAndTheEndpointAnswerWhileRedisIsDown() throws InterruptedException {
		RunningApp app = start(GENEROUS_TIMEOUT, "ratelimit.failure-mode=closed");
		assertThat(app.get("/annotated").statusCode()).isEqualTo(200);
		redis.stop();
		Thread.sleep(500);
		for (int i = 0; i < 3; i++) {
			HttpResponse<String> response = app.get("/annotated");
			assertThat(response.statusCode()).isEqualTo(503);
			assertThat(response.headers().firstValue("Retry-After")).isPresent();
			assertThat(response.body()).contains("temporary-reduced-capacity", "\"policy\":\"annotated\"");
		}
		HttpResponse<String> policies = app.get("/actuator/ratelimits");
		assertThat(policies.statusCode()).isEqualTo(200);
		assertThat(policies.body()).contains("\"annotated\"", "\"failed\":3");
		// a client's state needs Redis: the operation fails (as documented) rather than guess, and at once
		assertThat(app.get("/actuator/ratelimits/annotated/127.0.0.1").statusCode()).isEqualTo(500);
		assertThat(count(app, "ratelimit.requests", "outcome:failed-closed")).isEqualTo(3);
	}

}
