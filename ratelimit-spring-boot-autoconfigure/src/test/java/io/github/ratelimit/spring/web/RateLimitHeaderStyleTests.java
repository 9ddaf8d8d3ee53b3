package io.github.ratelimit.spring.web;

import io.github.ratelimit.test.Clients;
import io.github.ratelimit.test.TestRedisProperties;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.http.HttpStatus;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.context.TestPropertySource;
import org.springframework.test.web.servlet.assertj.MockMvcTester;
import org.springframework.test.web.servlet.assertj.MvcTestResult;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests that {@code ratelimit.headers} chooses the headers of limited responses, admitted or refused.
 */
@SpringBootTest(classes = FilterTestApplication.class,
		properties = { "ratelimit.policies.hello.paths=/api/hello", "ratelimit.policies.hello.limits=5/10s",
				"ratelimit.policies.daily.paths=/api/daily", "ratelimit.policies.daily.limits=10/1s,1/1d" })
@AutoConfigureMockMvc
class RateLimitHeaderStyleTests {

	@DynamicPropertySource
	static void redisProperties(DynamicPropertyRegistry registry) {
		TestRedisProperties.register(registry);
	}

	@Autowired
	MockMvcTester mvc;

	final String client = Clients.newAddress();

	MvcTestResult get(String uri) {
		return this.mvc.get().uri(uri).with(Clients.from(this.client)).exchange();
	}

	MvcTestResult refused(String uri) {
		get(uri);
		MvcTestResult refused = get(uri);
		assertThat(refused).hasStatus(HttpStatus.TOO_MANY_REQUESTS).containsHeader("Retry-After");
		return refused;
	}

	@Nested
	class Both {

		@Test
		void admittedResponseShouldCarryIetfAndLegacyHeaders() {
			assertThat(get("/api/hello")).hasStatusOk()
				.hasHeader("RateLimit-Policy", "\"hello\";q=5;w=10")
				.hasHeader("RateLimit", "\"hello\";r=4;t=2")
				.hasHeader("X-RateLimit-Limit", "5")
				.hasHeader("X-RateLimit-Remaining", "4")
				.hasHeader("X-RateLimit-Reset", "2");
		}

		@Test
		void policyOfSeveralLimitsShouldListEachAndReportTheOneThatBinds() {
			assertThat(get("/api/daily")).hasStatusOk()
				.hasHeader("RateLimit-Policy", "\"daily-1s\";q=10;w=1, \"daily-1d\";q=1;w=86400")
				.hasHeader("RateLimit", "\"daily-1d\";r=0;t=86400")
				.hasHeader("X-RateLimit-Limit", "1")
				.hasHeader("X-RateLimit-Remaining", "0")
				.hasHeader("X-RateLimit-Reset", "86400");
		}

		@Test
		void refusedResponseShouldCarryIetfAndLegacyHeaders() {
			assertThat(refused("/api/daily")).hasHeader("Retry-After", "86400")
				.hasHeader("RateLimit-Policy", "\"daily-1s\";q=10;w=1, \"daily-1d\";q=1;w=86400")
				.hasHeader("RateLimit", "\"daily-1d\";r=0;t=86400")
				.hasHeader("X-RateLimit-Limit", "1")
				.hasHeader("X-RateLimit-Remaining", "0")
				.hasHeader("X-RateLimit-Reset", "86400");
		}

	}

	@Nested
	@TestPropertySource(properties = "ratelimit.headers=ietf")
	class Ietf {

		@Test
		void admittedResponseShouldCarryOnlyIetfHeaders() {
			assertThat(get("/api/hello")).hasStatusOk()
				.hasHeader("RateLimit-Policy", "\"hello\";q=5;w=10")
				.hasHeader("RateLimit", "\"hello\";r=4;t=2")
				.doesNotContainHeader("X-RateLimit-Limit")
				.doesNotContainHeader("X-RateLimit-Remaining")
				.doesNotContainHeader("X-RateLimit-Reset");
		}

		@Test
		void refusedResponseShouldCarryOnlyIetfHeaders() {
			assertThat(refused("/api/daily")).containsHeader("RateLimit-Policy")
				.containsHeader("RateLimit")
				.doesNotContainHeader("X-RateLimit-Limit")
				.doesNotContainHeader("X-RateLimit-Remaining")
				.doesNotContainHeader("X-RateLimit-Reset");
		}

	}

	@Nested
	@TestPropertySource(properties = "ratelimit.headers=legacy")
	class Legacy {

		@Test
		void admittedResponseShouldCarryOnlyLegacyHeaders() {
			assertThat(get("/api/hello")).hasStatusOk()
				.hasHeader("X-RateLimit-Limit", "5")
				.hasHeader("X-RateLimit-Remaining", "4")
				.hasHeader("X-RateLimit-Reset", "2")
				.doesNotContainHeader("RateLimit-Policy")
				.doesNotContainHeader("RateLimit");
		}

		@Test
		void refusedResponseShouldCarryOnlyLegacyHeaders() {
			assertThat(refused("/api/daily")).hasHeader("X-RateLimit-Remaining", "0")
				.doesNotContainHeader("RateLimit-Policy")
				.doesNotContainHeader("RateLimit");
		}

	}

	@Nested
	@TestPropertySource(properties = "ratelimit.headers=none")
	class None {

		@Test
		void admittedResponseShouldCarryNoRateLimitHeaders() {
			MvcTestResult admitted = get("/api/hello");
			assertThat(admitted).hasStatusOk();
			AbstractRateLimitFilterTests.assertNoRateLimitHeaders(admitted);
		}

		@Test
		void refusedResponseShouldCarryOnlyRetryAfter() {
			AbstractRateLimitFilterTests.assertNoRateLimitHeaders(refused("/api/daily"));
		}

	}

}
