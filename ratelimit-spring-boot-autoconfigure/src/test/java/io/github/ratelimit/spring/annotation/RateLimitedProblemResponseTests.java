package io.github.ratelimit.spring.annotation;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.ratelimit.test.Clients;
import io.github.ratelimit.test.ProblemBodies;
import io.github.ratelimit.test.TestRedisProperties;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.context.annotation.Import;
import org.springframework.http.HttpStatus;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.assertj.MockMvcTester;
import org.springframework.test.web.servlet.assertj.MvcTestResult;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests that a refusal by {@link RateLimited} inside Spring MVC is answered exactly as a refusal by the filter.
 */
@SpringBootTest(
		classes = { AnnotationTestApplication.class, RateLimitedProblemResponseTests.CompareConfiguration.class },
		properties = { "ratelimit.policies.filtered.paths=/compare/filtered",
				"ratelimit.policies.filtered.limits=1/1h",
				// AnnotationTestApplication's configuration-only policies must be configured to start
				"ratelimit.policies.configuration-only.limits=2/1h", "ratelimit.policies.shadowed.limits=1/1h" })
@AutoConfigureMockMvc
class RateLimitedProblemResponseTests {

	private static final String[] HEADERS = { "Content-Type", "Retry-After", "RateLimit-Policy", "RateLimit",
			"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset" };

	@DynamicPropertySource
	static void redisProperties(DynamicPropertyRegistry registry) {
		TestRedisProperties.register(registry);
	}

	@Autowired
	private MockMvcTester mvc;

	private final String client = Clients.newAddress();

	@Test
	void refusalByAnnotationShouldRenderAsRefusalByFilter() {
		Map<String, Object> byFilter = refusal("/compare/filtered", "filtered");
		Map<String, Object> byAnnotation = refusal("/compare/annotated", "annotated");
		assertThat(byAnnotation).isEqualTo(byFilter);
	}

	/**
	 * The second response of a URI, a refusal, with the policy's name, the URI and the times that depend on the
	 * moment of the request replaced by placeholders.
	 */
	private Map<String, Object> refusal(String uri, String policy) {
		assertThat(this.mvc.get().uri(uri).with(Clients.from(this.client))).hasStatusOk();
		MvcTestResult refused = this.mvc.get().uri(uri).with(Clients.from(this.client)).exchange();
		assertThat(refused).hasStatus(HttpStatus.TOO_MANY_REQUESTS);
		Map<String, Object> rendered = new LinkedHashMap<>();
		rendered.put("status", refused.getResponse().getStatus());
		for (String header : HEADERS) {
			rendered.put(header, refused.getResponse().getHeaders(header)
				.stream()
				.map((value) -> normalize(value, uri, policy))
				.toList());
		}
		Map<String, Object> problem = new LinkedHashMap<>();
		ProblemBodies.of(refused).forEach((name, value) -> problem.put(name, normalize(value, uri, policy)));
		rendered.put("body", problem);
		return rendered;
	}

	private static Object normalize(Object value, String uri, String policy) {
		if (value instanceof String text) {
			return normalize(text, uri, policy);
		}
		if (value instanceof List<?> values) {
			return values.stream().map((element) -> normalize(element, uri, policy)).toList();
		}
		return value;
	}

	private static String normalize(String value, String uri, String policy) {
		return value.replace(uri, "<uri>")
			.replace("\"" + policy + "\"", "\"<policy>\"")
			.replace("'" + policy + "'", "'<policy>'")
			.replaceAll("^" + policy + "$", "<policy>")
			.replaceAll("retry in \\d+ s", "retry in <seconds> s")
			.replaceAll(";t=\\d+", ";t=<seconds>")
			.replaceAll("^\\d{3,}$", "<seconds>");
	}

	@TestConfiguration(proxyBeanMethods = false)
	@Import(CompareController.class)
	static class CompareConfiguration {

	}

	@RestController
	static class CompareController {

		@GetMapping("/compare/filtered")
		public String filtered() {
			return "ok";
		}

		@GetMapping("/compare/annotated")
		@RateLimited(name = "annotated", limits = "1/1h")
		public String annotated() {
			return "ok";
		}

	}

}
