package io.github.ratelimit.spring.annotation;

import io.github.ratelimit.test.Clients;
import io.github.ratelimit.test.ProblemBodies;
import io.github.ratelimit.test.TestRedisProperties;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.context.annotation.Import;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.assertj.MockMvcTester;
import org.springframework.test.web.servlet.assertj.MockMvcTester.MockMvcRequestBuilder;
import org.springframework.test.web.servlet.assertj.MvcTestResult;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link RateLimited} inside web requests that the filter also limits, and its answers to key and cost expressions
 * that come to nothing usable: never a 500.
 */
@SpringBootTest(classes = RateLimitedWebRequestTests.WebApplication.class,
		properties = { "ratelimit.policies.shared.paths=/web/shared", "ratelimit.policies.shared.limits=2/1h",
				"ratelimit.policies.tight.paths=/web/loose", "ratelimit.policies.tight.limits=2/1h",
				"ratelimit.policies.wide.paths=/web/strict", "ratelimit.policies.wide.limits=10/1h" })
@AutoConfigureMockMvc
class RateLimitedWebRequestTests {

	@DynamicPropertySource
	static void redisProperties(DynamicPropertyRegistry registry) {
		TestRedisProperties.register(registry);
	}

	@Autowired
	private MockMvcTester mvc;

	private final String client = Clients.newAddress();

	@Test
	void policyMetByTheFilterAndAnAnnotationShouldBeChargedOnce() {
		assertThat(get("/web/shared")).hasStatusOk().hasHeader("X-RateLimit-Remaining", "1");
		assertThat(get("/web/shared")).hasStatusOk().hasHeader("X-RateLimit-Remaining", "0");
		MvcTestResult refused = get("/web/shared").exchange();
		assertThat(refused).hasStatus(HttpStatus.TOO_MANY_REQUESTS);
		assertThat(ProblemBodies.of(refused)).containsEntry("policy", "shared");
	}

	@Test
	void filterPolicyThatBindsMoreShouldKeepItsHeadersWhenAnAnnotationAdmits() {
		assertThat(get("/web/loose")).hasStatusOk()
			.hasHeader("RateLimit-Policy", "\"tight\";q=2;w=3600")
			.hasHeader("X-RateLimit-Limit", "2")
			.hasHeader("X-RateLimit-Remaining", "1");
	}

	@Test
	void annotationPolicyThatBindsMoreShouldShowItsHeaders() {
		assertThat(get("/web/strict")).hasStatusOk()
			.hasHeader("RateLimit-Policy", "\"strict\";q=1;w=3600")
			.hasHeader("X-RateLimit-Remaining", "0");
	}

	@Test
	void keyExpressionThatFailsShouldCountTheCallUnderTheClientAddress() {
		assertThat(get("/web/fragile-key")).hasStatusOk();
		assertThat(get("/web/fragile-key")).hasStatus(HttpStatus.TOO_MANY_REQUESTS);
		assertThat(from(Clients.newAddress(), "/web/fragile-key")).hasStatusOk();
	}

	@Test
	void keyExpressionThatYieldsNullShouldCountTheCallUnderTheClientAddress() {
		assertThat(get("/web/null-key")).hasStatusOk();
		assertThat(get("/web/null-key")).hasStatus(HttpStatus.TOO_MANY_REQUESTS);
		assertThat(from(Clients.newAddress(), "/web/null-key")).hasStatusOk();
	}

	@Test
	void defaultKeyShouldCountEveryAddressOfAnIpv6Slash64AsOneClient() {
		assertThat(from("2001:db8:7:1::1", "/web/by-address")).hasStatusOk();
		assertThat(from("2001:db8:7:1:ffff::2", "/web/by-address")).hasStatus(HttpStatus.TOO_MANY_REQUESTS);
		assertThat(from("2001:db8:7:2::1", "/web/by-address")).hasStatusOk();
	}

	@Test
	void keyExpressionThatYieldsNullShouldCountAnIpv6ClientByItsSlash64() {
		assertThat(from("2001:db8:8:1::1", "/web/null-key")).hasStatusOk();
		assertThat(from("2001:db8:8:1::2", "/web/null-key")).hasStatus(HttpStatus.TOO_MANY_REQUESTS);
	}

	@Test
	void costBelowOneShouldBeABadRequestChargingNothing() {
		assertBadRequest(get("/web/units").param("units", "0"));
		assertBadRequest(get("/web/units").param("units", "-3"));
		assertThat(get("/web/units").param("units", "10")).hasStatusOk().hasHeader("X-RateLimit-Remaining", "0");
	}

	@Test
	void costThatIsNotANumberShouldBeABadRequest() {
		assertBadRequest(get("/web/labelled").param("label", "lots"));
		assertThat(get("/web/labelled").param("label", "3")).hasStatusOk().hasHeader("X-RateLimit-Remaining", "7");
	}

	@Test
	void costExpressionThatFailsShouldBeABadRequest() {
		assertBadRequest(get("/web/labelled"));
	}

	@Test
	void fractionalCostShouldBeRoundedUp() {
		assertThat(get("/web/fraction").param("units", "5")).hasStatusOk().hasHeader("X-RateLimit-Remaining", "7");
	}

	private static void assertBadRequest(MockMvcRequestBuilder request) {
		MvcTestResult result = request.exchange();
		assertThat(result).hasStatus(HttpStatus.BAD_REQUEST)
			.hasContentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON)
			.doesNotContainHeader("Retry-After");
		assertThat(ProblemBodies.of(result)).containsEntry("status", 400)
			.containsEntry("detail",
					"The cost of this request could not be determined: it must be a whole number of at least 1 permit.");
	}

	private MockMvcRequestBuilder get(String uri) {
		return from(this.client, uri);
	}

	private MockMvcRequestBuilder from(String address, String uri) {
		return this.mvc.get().uri(uri).with(Clients.from(address));
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import(WebController.class)
	static class WebApplication {

	}

	@RestController
	@RequestMapping("/web")
	static class WebController {

		@GetMapping("/shared")
		@RateLimited("shared")
		public String shared() {
			return "ok";
		}

		@GetMapping("/loose")
		@RateLimited(name = "loose", limits = "5/1h")
		public String loose() {
			return "ok";
		}

		@GetMapping("/strict")
		@RateLimited(name = "strict", limits = "1/1h")
		public String strict() {
			return "ok";
		}

		@GetMapping("/fragile-key")
		@RateLimited(name = "fragile-key", limits = "1/1h", key = "#request.getHeader('X-Tenant').substring(2)")
		public String fragileKey() {
			return "ok";
		}

		@GetMapping("/null-key")
		@RateLimited(name = "null-key", limits = "1/1h", key = "#tenant")
		public String nullKey(@RequestParam(required = false) String tenant) {
			return "ok";
		}

		@GetMapping("/by-address")
		@RateLimited(name = "by-address", limits = "1/1h")
		public String byAddress() {
			return "ok";
		}

		@GetMapping("/units")
		@RateLimited(name = "web-units", limits = "10/1h", cost = "#units")
		public String units(@RequestParam long units) {
			return "ok";
		}

		@GetMapping("/labelled")
		@RateLimited(name = "labelled", limits = "10/1h", cost = "#label.trim()")
		public String labelled(@RequestParam(required = false) String label) {
			return "ok";
		}

		@GetMapping("/fraction")
		@RateLimited(name = "fraction", limits = "10/1h", cost = "#units / 2.0")
		public String fraction(@RequestParam long units) {
			return "ok";
		}

	}

}
