package io.github.ratelimit.spring.web;

import org.junit.jupiter.api.Test;

import org.springframework.boot.WebApplicationType;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Plans on Spring MVC (Tomcat), through the servlet filter.
 */
class RateLimitPlansTests extends AbstractRateLimitPlansTests {

	RateLimitPlansTests() {
		super(WebApplicationType.SERVLET);
	}

	@Test
	void serverShouldBeTomcat() {
		assertThat(server().webServer()).isEqualTo("TomcatWebServer");
	}

}
