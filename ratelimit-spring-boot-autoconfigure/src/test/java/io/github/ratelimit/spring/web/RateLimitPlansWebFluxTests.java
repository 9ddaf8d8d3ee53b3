package io.github.ratelimit.spring.web;

import io.github.ratelimit.test.OwnReactorResources;
import org.junit.jupiter.api.Test;

import org.springframework.boot.WebApplicationType;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Plans on WebFlux (Netty), through the reactive filter, under BlockHound: a resolver's plan, answered at once or
 * later (on a timer's thread), is picked without blocking.
 */
class RateLimitPlansWebFluxTests extends AbstractRateLimitPlansTests {

	RateLimitPlansWebFluxTests() {
		super(WebApplicationType.REACTIVE, OwnReactorResources.class);
	}

	@Test
	void serverShouldBeNetty() {
		assertThat(server().webServer()).isEqualTo("NettyWebServer");
	}

}
