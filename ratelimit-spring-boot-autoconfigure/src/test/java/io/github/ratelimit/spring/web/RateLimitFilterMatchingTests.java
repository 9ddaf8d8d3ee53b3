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
 * Tests which requests the filter applies a policy to: {@code paths}, {@code exclude-paths}, {@code methods}, and
 * what each costs.
 */
@SpringBootTest(classes = FilterTestApplication.class,
		properties = { "ratelimit.policies.annotations-only.limits=1/1h",
				"ratelimit.policies.orders.paths=/orders/**,/carts/{id}", "ratelimit.policies.orders.limits=1/1h",
				"ratelimit.policies.reports.paths=/reports/**",
				"ratelimit.policies.reports.exclude-paths=/reports/health",
				"ratelimit.policies.reports.limits=1/1h", "ratelimit.policies.writes.paths=/writes/**",
				"ratelimit.policies.writes.methods=post,DELETE", "ratelimit.policies.writes.limits=1/1h",
				"ratelimit.policies.exports.paths=/exports", "ratelimit.policies.exports.limits=5/1h",
				"ratelimit.policies.exports.cost=2", "ratelimit.policies.reads.paths=/reads/**",
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
	void filterWhenPolicyHasNoPathsShouldNotApply() {
		for (int i = 0; i < 3; i++) {
			MvcTestResult result = request(HttpMethod.GET, "/annotations-only");
			assertThat(result).hasStatusOk();
			AbstractRateLimitFilterTests.assertNoRateLimitHeaders(result);
		}
	}

	@Test
	void filterShouldApplyPolicyToEveryPathMatchingItsPatterns() {
		assertThat(request(HttpMethod.GET, "/orders/1/lines")).hasStatusOk()
			.hasHeader("RateLimit-Policy", "\"orders\";q=1;w=3600");
		assertThat(request(HttpMethod.GET, "/carts/7")).hasStatus(HttpStatus.TOO_MANY_REQUESTS);
		assertThat(request(HttpMethod.GET, "/orders")).hasStatus(HttpStatus.TOO_MANY_REQUESTS);
	}

	@Test
	void filterShouldNotApplyPolicyToPathsOutsideItsPatterns() {
		assertThat(request(HttpMethod.GET, "/orders/1")).hasStatusOk();
		for (String path : new String[] { "/carts/7/items", "/ordersx", "/api/orders/1" }) {
			MvcTestResult result = request(HttpMethod.GET, path);
			assertThat(result).as(path).hasStatusOk();
			AbstractRateLimitFilterTests.assertNoRateLimitHeaders(result);
		}
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
	void filterShouldApplyPolicyOnlyToItsMethods() {
		for (int i = 0; i < 3; i++) {
			MvcTestResult result = request(HttpMethod.GET, "/writes/1");
			assertThat(result).hasStatusOk();
			AbstractRateLimitFilterTests.assertNoRateLimitHeaders(result);
		}
		assertThat(request(HttpMethod.POST, "/writes/1")).hasStatusOk().hasHeader("X-RateLimit-Remaining", "0");
		assertThat(request(HttpMethod.DELETE, "/writes/1")).hasStatus(HttpStatus.TOO_MANY_REQUESTS);
		assertThat(request(HttpMethod.PUT, "/writes/1")).hasStatusOk();
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
	void filterShouldNotCountHeadWhereOnlyOtherMethodsAreListed() {
		for (int i = 0; i < 3; i++) {
			MvcTestResult result = request(HttpMethod.HEAD, "/writes/1");
			assertThat(result).hasStatusOk();
			AbstractRateLimitFilterTests.assertNoRateLimitHeaders(result);
		}
	}

	@Test
	void filterShouldTakeTheCostOfThePolicyFromEachRequest() {
		assertThat(request(HttpMethod.GET, "/exports")).hasStatusOk().hasHeader("X-RateLimit-Remaining", "3");
		assertThat(request(HttpMethod.GET, "/exports")).hasStatusOk().hasHeader("X-RateLimit-Remaining", "1");
		MvcTestResult refused = request(HttpMethod.GET, "/exports");
		assertThat(refused).hasStatus(HttpStatus.TOO_MANY_REQUESTS).hasHeader("X-RateLimit-Remaining", "1");
	}

	private MvcTestResult request(HttpMethod method, String uri) {
		return this.mvc.method(method).uri(uri).with(Clients.from(this.client)).exchange();
	}

}
