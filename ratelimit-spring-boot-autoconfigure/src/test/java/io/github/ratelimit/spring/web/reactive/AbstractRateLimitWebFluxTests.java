package io.github.ratelimit.spring.web.reactive;

import java.util.List;

import io.github.ratelimit.spring.RateLimitExceededException;
import io.github.ratelimit.test.Clients;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.webtestclient.autoconfigure.AutoConfigureWebTestClient;
import org.springframework.http.HttpStatus;
import org.springframework.test.web.reactive.server.EntityExchangeResult;
import org.springframework.test.web.reactive.server.WebTestClient;

import static io.github.ratelimit.spring.web.reactive.WebFluxRequests.assertNoRateLimitHeaders;
import static io.github.ratelimit.spring.web.reactive.WebFluxRequests.exchange;
import static io.github.ratelimit.spring.web.reactive.WebFluxRequests.problem;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The behaviour of the WebFlux filter that every backend must show, on a real Reactor Netty server, exactly as the
 * servlet filter's ({@code AbstractRateLimitFilterTests}): headers of admitted requests, the 429 of refused ones,
 * shadow policies and requests matching several policies.
 */
@SpringBootTest(classes = WebFluxTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { WebFluxTestApplication.REACTIVE, "ratelimit.policies.hello.paths=/api/hello",
				"ratelimit.policies.hello.limits=5/10s", "ratelimit.policies.quota.paths=/api/quota/**",
				"ratelimit.policies.quota.limits=3/1h", "ratelimit.policies.shadow.paths=/api/shadow",
				"ratelimit.policies.shadow.limits=1/1h", "ratelimit.policies.shadow.shadow=true",
				"ratelimit.policies.wide.paths=/api/two/**", "ratelimit.policies.wide.limits=10/1h",
				"ratelimit.policies.narrow.paths=/api/two/narrow", "ratelimit.policies.narrow.limits=1/1h",
				"ratelimit.policies.outer.paths=/api/pair/**", "ratelimit.policies.outer.limits=1/1h",
				"ratelimit.policies.inner.paths=/api/pair/inner", "ratelimit.policies.inner.limits=10/1h" })
@AutoConfigureWebTestClient(timeout = "30s")
abstract class AbstractRateLimitWebFluxTests {

	private WebFluxRequests requests;

	@Autowired
	void client(WebTestClient client) {
		this.requests = new WebFluxRequests(client, Clients.newAddress());
	}

	@Test
	void admittedRequestShouldCarryTheHeadersOfItsDecision() {
		this.requests.get("/api/hello")
			.exchange()
			.expectStatus()
			.isOk()
			.expectHeader()
			.valueEquals("RateLimit-Policy", "\"hello\";q=5;w=10")
			.expectHeader()
			.valueEquals("RateLimit", "\"hello\";r=4;t=2")
			.expectHeader()
			.valueEquals("X-RateLimit-Limit", "5")
			.expectHeader()
			.valueEquals("X-RateLimit-Remaining", "4")
			.expectHeader()
			.valueEquals("X-RateLimit-Reset", "2")
			.expectHeader()
			.doesNotExist("Retry-After")
			.expectBody(String.class)
			.isEqualTo("ok");
	}

	@Test
	void remainingShouldCountDownWithEachAdmittedRequest() {
		assertRemaining("/api/quota/items", "2");
		assertRemaining("/api/quota/items", "1");
		assertRemaining("/api/quota/other", "0");
	}

	@Test
	void requestOverTheLimitShouldBeRefusedWithAProblemDetail() {
		for (int i = 0; i < 3; i++) {
			this.requests.get("/api/quota/items").exchange().expectStatus().isOk();
		}
		EntityExchangeResult<byte[]> refused = exchange(this.requests.get("/api/quota/items"));
		// a token bucket of 3/1h gains a permit every 1200 s and is full 3600 s after it was emptied
		assertThat(refused.getStatus()).isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
		assertThat(refused.getResponseHeaders().toSingleValueMap()).containsEntry("Retry-After", "1200")
			.containsEntry("RateLimit-Policy", "\"quota\";q=3;w=3600")
			.containsEntry("RateLimit", "\"quota\";r=0;t=1200")
			.containsEntry("X-RateLimit-Limit", "3")
			.containsEntry("X-RateLimit-Remaining", "0")
			.containsEntry("X-RateLimit-Reset", "3600");
		assertThat(problem(refused))
			.containsOnlyKeys("type", "title", "status", "detail", "instance", "policy", "violated-policies")
			.containsEntry("type", RateLimitExceededException.QUOTA_EXCEEDED)
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
			this.requests.get("/api/quota/items").exchange().expectStatus().isOk();
		}
		this.requests.get("/api/quota/items").exchange().expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
		this.requests.from(Clients.newAddress()).get("/api/quota/items")
			.exchange()
			.expectStatus()
			.isOk()
			.expectHeader()
			.valueEquals("X-RateLimit-Remaining", "2");
	}

	@Test
	void shadowPolicyShouldNeverChangeTheResponse() {
		for (int i = 0; i < 3; i++) {
			EntityExchangeResult<byte[]> result = exchange(this.requests.get("/api/shadow"));
			assertThat(result.getStatus()).isEqualTo(HttpStatus.OK);
			assertThat(result.getResponseBody()).asString().isEqualTo("ok");
			assertThat(result.getResponseHeaders().getFirst("Retry-After")).isNull();
			assertNoRateLimitHeaders(result);
		}
	}

	@Test
	void requestMatchingNoPolicyShouldNotBeLimited() {
		for (int i = 0; i < 5; i++) {
			EntityExchangeResult<byte[]> result = exchange(this.requests.get("/api/unlimited"));
			assertThat(result.getStatus()).isEqualTo(HttpStatus.OK);
			assertNoRateLimitHeaders(result);
		}
	}

	@Test
	void requestMatchingTwoPoliciesShouldCarryTheHeadersOfTheOneWithFewestRemaining() {
		this.requests.get("/api/two/narrow")
			.exchange()
			.expectStatus()
			.isOk()
			.expectHeader()
			.valueEquals("RateLimit-Policy", "\"narrow\";q=1;w=3600")
			.expectHeader()
			.valueEquals("X-RateLimit-Remaining", "0");
		this.requests.get("/api/two/other")
			.exchange()
			.expectStatus()
			.isOk()
			.expectHeader()
			.valueEquals("RateLimit-Policy", "\"wide\";q=10;w=3600");
	}

	@Test
	void requestMatchingTwoPoliciesShouldBeRefusedWhenTheNarrowerRefuses() {
		this.requests.get("/api/two/narrow").exchange().expectStatus().isOk();
		EntityExchangeResult<byte[]> refused = exchange(this.requests.get("/api/two/narrow"));
		assertThat(refused.getStatus()).isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
		assertThat(problem(refused)).containsEntry("policy", "narrow");
		this.requests.get("/api/two/other").exchange().expectStatus().isOk();
	}

	@Test
	void requestMatchingTwoPoliciesShouldBeRefusedWhenTheWiderRefuses() {
		this.requests.get("/api/pair/first").exchange().expectStatus().isOk();
		EntityExchangeResult<byte[]> refused = exchange(this.requests.get("/api/pair/inner"));
		assertThat(refused.getStatus()).isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
		assertThat(problem(refused)).containsEntry("policy", "outer");
	}

	private void assertRemaining(String uri, String remaining) {
		this.requests.get(uri).exchange().expectStatus().isOk().expectHeader().valueEquals("X-RateLimit-Remaining",
				remaining);
	}

}
