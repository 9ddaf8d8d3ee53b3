package io.github.ratelimit.classpath.webflux;

import io.github.ratelimit.classpath.RunningApp;
import io.github.ratelimit.spring.RateLimitRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.web.context.reactive.ReactiveWebApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs in the {@code webflux} scenario's JVM (see this module's pom): with {@code ratelimit.enabled=false} the
 * reactive application starts without the rate limiter and serves every request. A class of its own, because two
 * reactive applications running at once in one JVM share Reactor Netty's global event loops, which the first to
 * close shuts down.
 */
class WebFluxDisabledApplicationTests {

	@Test
	void startUpWithRateLimitingDisabledShouldServeRequests() {
		try (RunningApp app = RunningApp.start(WebFluxApplication.class, "ratelimit.enabled=false",
				"ratelimit.policies.hello.paths=/hello", "ratelimit.policies.hello.limits=3/1h")) {
			assertThat(app.context()).isInstanceOf(ReactiveWebApplicationContext.class);
			assertThat(app.context().getBeansOfType(RateLimitRegistry.class)).isEmpty();
			assertThat(app.statuses("/hello", 4)).containsExactly(200, 200, 200, 200);
		}
	}

}
