package io.github.ratelimit.spring.web;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.github.ratelimit.spring.RateLimitExceededException;
import io.github.ratelimit.test.Clients;
import io.github.ratelimit.test.ProblemBodies;
import io.github.ratelimit.test.RateLimitHeaderNames;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.assertj.MockMvcTester;
import org.springframework.test.web.servlet.assertj.MvcTestResult;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The behaviour of the rate limit filter that every backend must show: headers of admitted requests, the 429 of
 * refused ones, shadow policies and requests matching several policies.
 */
@SpringBootTest(classes = FilterTestApplication.class,
		properties = { "ratelimit.policies.hello.paths=/api/hello", "ratelimit.policies.hello.limits=5/10s",
				"ratelimit.policies.quota.paths=/api/quota/**", "ratelimit.policies.quota.limits=3/1h",
				"ratelimit.policies.shadow.paths=/api/shadow", "ratelimit.policies.shadow.limits=1/1h",
				"ratelimit.policies.shadow.shadow=true", "ratelimit.policies.wide.paths=/api/two/**",
				"ratelimit.policies.wide.limits=10/1h", "ratelimit.policies.narrow.paths=/api/two/narrow",
				"ratelimit.policies.narrow.limits=1/1h", "ratelimit.policies.outer.paths=/api/pair/**",
				"ratelimit.policies.outer.limits=1/1h", "ratelimit.policies.inner.paths=/api/pair/inner",
				"ratelimit.policies.inner.limits=10/1h", "ratelimit.policies.paced.paths=/api/paced",
				"ratelimit.policies.paced.limits=1/200ms", "ratelimit.policies.paced.max-wait=10s" })
@AutoConfigureMockMvc
abstract class AbstractRateLimitFilterTests {

	@Autowired
	private MockMvcTester mvc;

	private final String client = Clients.newAddress();

	@Test
	void admittedRequestShouldCarryTheHeadersOfItsDecision() {
		assertThat(get("/api/hello")).hasStatusOk()
			.hasBodyTextEqualTo("ok")
			.hasHeader("RateLimit-Policy", "\"hello\";q=5;w=10")
			.hasHeader("RateLimit", "\"hello\";r=4;t=2")
			.hasHeader("X-RateLimit-Limit", "5")
			.hasHeader("X-RateLimit-Remaining", "4")
			.hasHeader("X-RateLimit-Reset", "2")
			.doesNotContainHeader("Retry-After");
	}

	@Test
	void aRequestOfAPolicyThatMayWaitShouldWaitForItsPermitAndBeAdmitted() {
		long start = System.nanoTime(); // before the first permit: the second comes 200 ms after it
		assertThat(get("/api/paced")).hasStatusOk();
		assertThat(get("/api/paced")).hasStatusOk().hasHeader("X-RateLimit-Remaining", "0");
		// the second request waited for its permit on its servlet thread
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(100));
	}

	@Test
	void remainingShouldCountDownWithEachAdmittedRequest() {
		assertThat(get("/api/quota/items")).hasStatusOk().hasHeader("X-RateLimit-Remaining", "2");
		assertThat(get("/api/quota/items")).hasStatusOk().hasHeader("X-RateLimit-Remaining", "1");
		assertThat(get("/api/quota/other")).hasStatusOk().hasHeader("X-RateLimit-Remaining", "0");
	}

	@Test
	void requestOverTheLimitShouldBeRefusedWithAProblemDetail() {
		for (int i = 0; i < 3; i++) {
			assertThat(get("/api/quota/items")).hasStatusOk();
		}
		MvcTestResult refused = get("/api/quota/items");
		// a token bucket of 3/1h gains a permit every 1200 s and is full 3600 s after it was emptied
		assertThat(refused).hasStatus(HttpStatus.TOO_MANY_REQUESTS)
			.hasContentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON)
			.hasHeader("Retry-After", "1200")
			.hasHeader("RateLimit-Policy", "\"quota\";q=3;w=3600")
			.hasHeader("RateLimit", "\"quota\";r=0;t=1200")
			.hasHeader("X-RateLimit-Limit", "3")
			.hasHeader("X-RateLimit-Remaining", "0")
			.hasHeader("X-RateLimit-Reset", "3600");
		assertThat(refused.getResponse().getContentType()).startsWith(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
		Map<String, Object> problem = ProblemBodies.of(refused);
		assertThat(problem)
			.containsOnlyKeys("type", "title", "status", "detail", "instance", "policy", "violated-policies")
			.containsEntry("type", RateLimitExceededException.QUOTA_EXCEEDED)
			.containsEntry("type", "https://iana.org/assignments/http-problem-types#quota-exceeded")
			.containsEntry("title", "Too Many Requests")
			.containsEntry("status", 429)
			.containsEntry("instance", "/api/quota/items")
			.containsEntry("policy", "quota")
			.containsEntry("violated-policies", List.of("quota"))
			.containsEntry("detail", "Rate limit policy 'quota' (3/1h) exceeded; retry in 1200 s.");
	}

	@Test
	void clientsShouldBeLimitedIndependently() {
		for (int i = 0; i < 3; i++) {
			assertThat(get("/api/quota/items")).hasStatusOk();
		}
		assertThat(get("/api/quota/items")).hasStatus(HttpStatus.TOO_MANY_REQUESTS);
		assertThat(this.mvc.get().uri("/api/quota/items").with(Clients.from(Clients.newAddress()))).hasStatusOk()
			.hasHeader("X-RateLimit-Remaining", "2");
	}

	@Test
	void shadowPolicyShouldNeverChangeTheResponse() {
		for (int i = 0; i < 3; i++) {
			MvcTestResult result = get("/api/shadow");
			assertThat(result).hasStatusOk().hasBodyTextEqualTo("ok").doesNotContainHeader("Retry-After");
			assertNoRateLimitHeaders(result);
		}
	}

	@Test
	void requestMatchingNoPolicyShouldNotBeLimited() {
		for (int i = 0; i < 5; i++) {
			MvcTestResult result = get("/api/unlimited");
			assertThat(result).hasStatusOk().hasBodyTextEqualTo("ok");
			assertNoRateLimitHeaders(result);
		}
	}

	@Test
	void requestMatchingTwoPoliciesShouldCarryTheHeadersOfTheOneWithFewestRemaining() {
		assertThat(get("/api/two/narrow")).hasStatusOk()
			.hasHeader("RateLimit-Policy", "\"narrow\";q=1;w=3600")
			.hasHeader("X-RateLimit-Remaining", "0");
		assertThat(get("/api/two/other")).hasStatusOk().hasHeader("RateLimit-Policy", "\"wide\";q=10;w=3600");
	}

	@Test
	void requestMatchingTwoPoliciesShouldBeRefusedWhenTheNarrowerRefuses() {
		assertThat(get("/api/two/narrow")).hasStatusOk();
		MvcTestResult refused = get("/api/two/narrow");
		assertThat(refused).hasStatus(HttpStatus.TOO_MANY_REQUESTS);
		assertThat(ProblemBodies.of(refused)).containsEntry("policy", "narrow");
		assertThat(get("/api/two/other")).hasStatusOk();
	}

	@Test
	void requestMatchingTwoPoliciesShouldBeRefusedWhenTheWiderRefuses() {
		assertThat(get("/api/pair/first")).hasStatusOk();
		MvcTestResult refused = get("/api/pair/inner");
		assertThat(refused).hasStatus(HttpStatus.TOO_MANY_REQUESTS);
		assertThat(ProblemBodies.of(refused)).containsEntry("policy", "outer");
	}

	private MvcTestResult get(String uri) {
		return this.mvc.get().uri(uri).with(Clients.from(this.client)).exchange();
	}

	static void assertNoRateLimitHeaders(MvcTestResult result) {
		for (String header : RateLimitHeaderNames.ALL) {
			assertThat(result).doesNotContainHeader(header);
		}
	}

}
