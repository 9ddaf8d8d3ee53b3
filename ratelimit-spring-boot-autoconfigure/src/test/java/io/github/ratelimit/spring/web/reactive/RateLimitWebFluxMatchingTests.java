package io.github.ratelimit.spring.web.reactive;

import io.github.ratelimit.test.Clients;
import io.github.ratelimit.test.TestRedisProperties;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.webtestclient.autoconfigure.AutoConfigureWebTestClient;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.reactive.server.EntityExchangeResult;
import org.springframework.test.web.reactive.server.WebTestClient;

import static io.github.ratelimit.spring.web.reactive.WebFluxRequests.assertNoRateLimitHeaders;
import static io.github.ratelimit.spring.web.reactive.WebFluxRequests.exchange;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The WebFlux filter applies a policy to the requests its {@code paths}, {@code exclude-paths} and {@code methods}
 * select, end to end, as {@code RateLimitFilterMatchingTests} shows for the servlet filter: it hands over the
 * exchange's method and its path within the application, and a request no policy applies to carries no rate limit
 * header. The selection's cases are tested once, for both stacks, in {@code FilterPoliciesTests}.
 */
@SpringBootTest(classes = WebFluxTestApplication.class,
		webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { WebFluxTestApplication.REACTIVE, "ratelimit.policies.orders.paths=/orders/**,/carts/{id}",
				"ratelimit.policies.orders.limits=1/1h",
				"ratelimit.policies.reports.paths=/reports/**",
				"ratelimit.policies.reports.exclude-paths=/reports/health",
				"ratelimit.policies.reports.limits=1/1h", "ratelimit.policies.reads.paths=/reads/**",
				"ratelimit.policies.reads.methods=GET", "ratelimit.policies.reads.limits=2/1h" })
@AutoConfigureWebTestClient(timeout = "30s")
class RateLimitWebFluxMatchingTests {

	@DynamicPropertySource
	static void redisProperties(DynamicPropertyRegistry registry) {
		TestRedisProperties.register(registry);
	}

	private WebFluxRequests requests;

	@Autowired
	void client(WebTestClient client) {
		this.requests = new WebFluxRequests(client, Clients.newAddress());
	}

	@Test
	void filterShouldApplyPolicyToEveryPathMatchingItsPatterns() {
		this.requests.get("/orders/1/lines")
			.exchange()
			.expectStatus()
			.isOk()
			.expectHeader()
			.valueEquals("RateLimit-Policy", "\"orders\";q=1;w=3600");
		assertStatus(HttpMethod.GET, "/carts/7", HttpStatus.TOO_MANY_REQUESTS);
		assertStatus(HttpMethod.GET, "/orders", HttpStatus.TOO_MANY_REQUESTS);
	}

	@Test
	void filterShouldNotApplyPolicyToExcludedPaths() {
		for (int i = 0; i < 3; i++) {
			assertNotLimited(HttpMethod.GET, "/reports/health");
		}
		assertStatus(HttpMethod.GET, "/reports/sales", HttpStatus.OK);
		assertStatus(HttpMethod.GET, "/reports/sales", HttpStatus.TOO_MANY_REQUESTS);
	}

	@Test
	void filterShouldCountHeadWhereverGetIsListedAsWebFluxServesItWithTheGetHandler() {
		assertRemaining(HttpMethod.HEAD, "/reads/1", "1");
		assertRemaining(HttpMethod.GET, "/reads/1", "0");
		assertStatus(HttpMethod.HEAD, "/reads/1", HttpStatus.TOO_MANY_REQUESTS);
		assertStatus(HttpMethod.GET, "/reads/1", HttpStatus.TOO_MANY_REQUESTS);
		assertStatus(HttpMethod.POST, "/reads/1", HttpStatus.OK);
	}

	private void assertNotLimited(HttpMethod method, String uri) {
		EntityExchangeResult<byte[]> result = exchange(this.requests.request(method, uri));
		assertThat(result.getStatus()).as("%s %s", method, uri).isEqualTo(HttpStatus.OK);
		assertNoRateLimitHeaders(result);
	}

	private void assertStatus(HttpMethod method, String uri, HttpStatus status) {
		this.requests.request(method, uri).exchange().expectStatus().isEqualTo(status);
	}

	private void assertRemaining(HttpMethod method, String uri, String remaining) {
		this.requests.request(method, uri)
			.exchange()
			.expectStatus()
			.isOk()
			.expectHeader()
			.valueEquals("X-RateLimit-Remaining", remaining);
	}

}
