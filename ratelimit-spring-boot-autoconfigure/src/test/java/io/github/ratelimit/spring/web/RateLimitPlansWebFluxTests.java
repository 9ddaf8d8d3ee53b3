package io.github.ratelimit.spring.web;

import io.github.ratelimit.test.OwnReactorResources;
import io.github.ratelimit.test.RunningServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.WebApplicationType;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Plans on WebFlux (Netty), through the reactive filter, under BlockHound: a resolver's plan, answered at once or
 * later (on a timer's thread), is picked without blocking.
 */
class RateLimitPlansWebFluxTests extends AbstractRateLimitPlansTests {

	private static RunningServer server;

	@BeforeAll
	static void startServer() {
		server = start(WebApplicationType.REACTIVE, OwnReactorResources.class);
	}

	@AfterAll
	static void stopServer() {
		server.close();
	}

	@Override
	RunningServer server() {
		return server;
	}

	@Test
	void serverShouldBeNetty() {
		assertThat(server.webServer()).isEqualTo("NettyWebServer");
	}

}
