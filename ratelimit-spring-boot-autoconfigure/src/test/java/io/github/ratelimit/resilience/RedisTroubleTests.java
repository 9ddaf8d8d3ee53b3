package io.github.ratelimit.resilience;

import java.net.http.HttpResponse;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link AbstractRedisTroubleTests} on the servlet stack, and {@code @RateLimited} methods and the endpoint while
 * Redis is down.
 */
class RedisTroubleTests extends AbstractRedisTroubleTests {

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
