package io.github.ratelimit.spring.web;

import io.github.ratelimit.test.RunningServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.WebApplicationType;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Plans on Spring MVC (Tomcat), through the servlet filter.
 */
class RateLimitPlansTests extends AbstractRateLimitPlansTests {

	private static RunningServer server;

	@BeforeAll
	static void startServer() {
		server = start(WebApplicationType.SERVLET);
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
	void serverShouldBeTomcat() {
		assertThat(server.webServer()).isEqualTo("TomcatWebServer");
	}

}
