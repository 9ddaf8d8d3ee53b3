package io.github.ratelimit.spring.web;

import io.github.ratelimit.test.Clients;
import io.github.ratelimit.test.TestRedisProperties;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.assertj.MockMvcTester;
import org.springframework.test.web.servlet.assertj.MvcTestResult;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The servlet filter applies a policy to the requests its {@code paths}, {@code exclude-paths} and {@code methods}
 * select, end to end: it hands over the request's method and its path within the application (behind a context
 * path), and a request no policy applies to carries no rate limit header. The selection's cases are tested once, for
 * both stacks, in {@code FilterPoliciesTests}.
 */
@SpringBootTest(classes = FilterTestApplication.class,
		properties = { "ratelimit.policies.orders.paths=/orders/**,/carts/{id}", "ratelimit.policies.orders.limits=1/1h",
				"ratelimit.policies.reports.paths=/reports/**",
				"ratelimit.policies.reports.exclude-paths=/reports/health",
				"ratelimit.policies.reports.limits=1/1h", "ratelimit.policies.reads.paths=/reads/**",
				"ratelimit.policies.reads.methods=GET", "ratelimit.policies.reads.limits=2/1h" })
@AutoConfigureMockMvc
class RateLimitFilterMatchingTests {

	@DynamicPropertySource
	static void redisProperties(DynamicPropertyRegistry registry) {
		TestRedisProperties.register(registry);
	}

	@Autowired
	private MockMvcTester mvc;

	private final String client = Clients.newAddress();

	@Test
	void filterShouldApplyPolicyToEveryPathMatchingItsPatterns() {
		assertThat(request(HttpMethod.GET, "/orders/1/lines")).hasStatusOk()
			.hasHeader("RateLimit-Policy", "\"orders\";q=1;w=3600");
		assertThat(request(HttpMethod.GET, "/carts/7")).hasStatus(HttpStatus.TOO_MANY_REQUESTS);
		assertThat(request(HttpMethod.GET, "/orders")).hasStatus(HttpStatus.TOO_MANY_REQUESTS);
	}

	@Test
	void filterShouldNotApplyPolicyToExcludedPaths() {
		for (int i = 0; i < 3; i++) {
			MvcTestResult result = request(HttpMethod.GET, "/reports/health");
			assertThat(result).hasStatusOk();
			AbstractRateLimitFilterTests.assertNoRateLimitHeaders(result);
		}
		assertThat(request(HttpMethod.GET, "/reports/sales")).hasStatusOk();
		assertThat(request(HttpMethod.GET, "/reports/sales")).hasStatus(HttpStatus.TOO_MANY_REQUESTS);
	}

	@Test
	void filterShouldCountHeadWhereverGetIsListedAsSpringMvcServesItWithTheGetHandler() {
		assertThat(request(HttpMethod.HEAD, "/reads/1")).hasStatusOk().hasHeader("X-RateLimit-Remaining", "1");
		assertThat(request(HttpMethod.GET, "/reads/1")).hasStatusOk().hasHeader("X-RateLimit-Remaining", "0");
		assertThat(request(HttpMethod.HEAD, "/reads/1")).hasStatus(HttpStatus.TOO_MANY_REQUESTS);
		assertThat(request(HttpMethod.GET, "/reads/1")).hasStatus(HttpStatus.TOO_MANY_REQUESTS);
		assertThat(request(HttpMethod.POST, "/reads/1")).hasStatusOk();
	}

	@Test
	void filterShouldMatchThePathWithinTheApplicationBehindItsContextPath() {
		MvcTestResult result = this.mvc.get().uri("/shop/carts/9").contextPath("/shop")
			.with(Clients.from(Clients.newAddress())).exchange();
		assertThat(result).hasStatusOk().hasHeader("RateLimit-Policy", "\"orders\";q=1;w=3600");
		MvcTestResult outside = this.mvc.get().uri("/orders/other/9").contextPath("/orders")
			.with(Clients.from(Clients.newAddress())).exchange();
		assertThat(outside).as("/other/9 is no policy's path, whatever the context path").hasStatusOk();
		AbstractRateLimitFilterTests.assertNoRateLimitHeaders(outside);
	}

	private MvcTestResult request(HttpMethod method, String uri) {
		return this.mvc.method(method).uri(uri).with(Clients.from(this.client)).exchange();
	}

}
