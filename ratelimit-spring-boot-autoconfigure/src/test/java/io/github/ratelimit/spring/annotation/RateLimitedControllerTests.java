package io.github.ratelimit.spring.annotation;

import io.github.ratelimit.spring.RateLimitRegistry;
import io.github.ratelimit.test.Clients;
import io.github.ratelimit.test.ProblemBodies;
import io.github.ratelimit.test.TestRedisProperties;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.assertj.MockMvcTester;
import org.springframework.test.web.servlet.assertj.MockMvcTester.MockMvcRequestBuilder;
import org.springframework.test.web.servlet.assertj.MvcTestResult;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link RateLimited} on the methods and classes of Spring MVC controllers.
 */
@SpringBootTest(classes = AnnotationTestApplication.class,
		properties = { "ratelimit.policies.configured.limits=3/1h",
				"ratelimit.policies.configuration-only.limits=2/1h",
				"ratelimit.policies.configuration-only.key=header:X-Api-Key",
				"ratelimit.policies.shadowed.limits=1/1h", "ratelimit.policies.shadowed.shadow=true",
				"ratelimit.policies.site.paths=/annotated/behind-filter", "ratelimit.policies.site.limits=10/1h" })
@AutoConfigureMockMvc
class RateLimitedControllerTests {

	@DynamicPropertySource
	static void redisProperties(DynamicPropertyRegistry registry) {
		TestRedisProperties.register(registry);
	}

	@Autowired
	private MockMvcTester mvc;

	@Autowired
	private RateLimitRegistry registry;

	private final String client = Clients.newAddress();

	@Test
	void policyNameShouldDefaultToSimpleClassNameAndMethod() {
		assertThat(get("/annotated/default")).hasStatusOk()
			.hasHeader("RateLimit-Policy", "\"AnnotatedController.byDefault\";q=1;w=3600");
		assertThat(this.registry.find("AnnotatedController.byDefault")).isPresent();
		assertRefusedBy(get("/annotated/default"), "AnnotatedController.byDefault");
	}

	@Test
	void policyShouldBeNamedByName() {
		assertThat(get("/annotated/named")).hasStatusOk()
			.hasBodyTextEqualTo("ok")
			.hasHeader("RateLimit-Policy", "\"named\";q=1;w=3600")
			.hasHeader("RateLimit", "\"named\";r=0;t=3600")
			.hasHeader("X-RateLimit-Limit", "1")
			.hasHeader("X-RateLimit-Remaining", "0")
			.hasHeader("X-RateLimit-Reset", "3600");
		assertRefusedBy(get("/annotated/named"), "named");
	}

	@Test
	void policyShouldBeNamedByValue() {
		assertThat(get("/annotated/valued")).hasStatusOk();
		assertRefusedBy(get("/annotated/valued"), "valued");
	}

	@Test
	void configuredLimitsShouldWinOverTheAnnotations() {
		for (int i = 0; i < 3; i++) {
			assertThat(get("/annotated/configured")).hasStatusOk()
				.hasHeader("RateLimit-Policy", "\"configured\";q=3;w=3600");
		}
		assertRefusedBy(get("/annotated/configured"), "configured");
	}

	@Test
	void annotationWithoutLimitsShouldApplyTheConfiguredPolicyAndItsKeyStrategy() {
		assertThat(get("/annotated/configuration-only").header("X-Api-Key", "alpha")).hasStatusOk()
			.hasHeader("RateLimit-Policy", "\"configuration-only\";q=2;w=3600");
		assertThat(get("/annotated/configuration-only").header("X-Api-Key", "alpha")).hasStatusOk();
		assertRefusedBy(from(Clients.newAddress(), "/annotated/configuration-only").header("X-Api-Key", "alpha"),
				"configuration-only");
		assertThat(get("/annotated/configuration-only").header("X-Api-Key", "beta")).hasStatusOk();
	}

	@Test
	void shadowPolicyShouldNeverChangeTheResponse() {
		for (int i = 0; i < 3; i++) {
			MvcTestResult result = get("/annotated/shadowed").exchange();
			assertThat(result).hasStatusOk()
				.hasBodyTextEqualTo("ok")
				.doesNotContainHeader("RateLimit")
				.doesNotContainHeader("RateLimit-Policy")
				.doesNotContainHeader("X-RateLimit-Remaining");
		}
	}

	@Test
	void refusalByAnnotationBehindTheFilterShouldCarryOnlyTheHeadersOfTheRefusingPolicy() {
		assertThat(get("/annotated/behind-filter")).hasStatusOk();
		MvcTestResult refused = get("/annotated/behind-filter").exchange();
		assertRefusedBy(refused, "behind-filter");
		assertThat(refused.getResponse().getHeaders("RateLimit-Policy"))
			.containsExactly("\"behind-filter\";q=1;w=3600");
		assertThat(refused.getResponse().getHeaders("X-RateLimit-Remaining")).containsExactly("0");
	}

	@Test
	void clientsShouldBeKeyedByAddressByDefault() {
		assertThat(get("/annotated/default")).hasStatusOk();
		assertThat(from(Clients.newAddress(), "/annotated/default")).hasStatusOk();
	}

	@Test
	void keyShouldBeASpelExpressionOverTheArgumentsByName() {
		assertThat(get("/annotated/customers/alice")).hasStatusOk();
		assertRefusedBy(from(Clients.newAddress(), "/annotated/customers/alice"), "per-customer");
		assertThat(get("/annotated/customers/bob")).hasStatusOk();
	}

	@Test
	void keyShouldSeeTheRequest() {
		assertThat(get("/annotated/tenant").header("X-Tenant", "acme")).hasStatusOk();
		assertRefusedBy(from(Clients.newAddress(), "/annotated/tenant").header("X-Tenant", "acme"), "per-tenant");
		assertThat(get("/annotated/tenant").header("X-Tenant", "globex")).hasStatusOk();
	}

	@Test
	void keyShouldSeeThePrincipal() {
		assertThat(get("/annotated/user").principal(() -> "alice")).hasStatusOk();
		assertRefusedBy(from(Clients.newAddress(), "/annotated/user").principal(() -> "alice"), "per-user");
		assertThat(get("/annotated/user").principal(() -> "bob")).hasStatusOk();
	}

	@Test
	void keyWhenNullShouldFallBackToTheClientAddress() {
		assertThat(get("/annotated/tenant")).hasStatusOk();
		assertRefusedBy(get("/annotated/tenant"), "per-tenant");
		assertThat(from(Clients.newAddress(), "/annotated/tenant")).hasStatusOk();
	}

	@Test
	void costShouldBeANumber() {
		assertThat(get("/annotated/weighted")).hasStatusOk().hasHeader("X-RateLimit-Remaining", "3");
		assertThat(get("/annotated/weighted")).hasStatusOk().hasHeader("X-RateLimit-Remaining", "1");
		MvcTestResult refused = get("/annotated/weighted").exchange();
		assertThat(refused).hasHeader("X-RateLimit-Remaining", "1");
		assertRefusedBy(refused, "weighted");
	}

	@Test
	void costShouldBeASpelExpressionOverTheArguments() {
		assertThat(get("/annotated/units").param("units", "4")).hasStatusOk().hasHeader("X-RateLimit-Remaining", "6");
		assertRefusedBy(get("/annotated/units").param("units", "7"), "units");
		assertThat(get("/annotated/units").param("units", "6")).hasStatusOk().hasHeader("X-RateLimit-Remaining", "0");
	}

	@Test
	void costAboveTheCapacityShouldBeRefusedSayingRetryingWillNotHelp() {
		MvcTestResult refused = get("/annotated/units").param("units", "11").exchange();
		assertThat(refused).hasStatus(HttpStatus.TOO_MANY_REQUESTS).doesNotContainHeader("Retry-After");
		assertThat(ProblemBodies.of(refused).get("detail")).asString().contains("retrying will not help");
		assertThat(get("/annotated/units").param("units", "10")).hasStatusOk();
	}

	@Test
	void repeatedAnnotationsShouldAllBeEnforced() {
		assertThat(get("/annotated/repeated")).hasStatusOk();
		assertThat(get("/annotated/repeated")).hasStatusOk();
		assertRefusedBy(get("/annotated/repeated"), "per-day");
		assertThat(this.registry.find("per-hour")).isPresent();
		assertThat(this.registry.find("per-day")).isPresent();
	}

	@Test
	void refusalByALaterAnnotationShouldCarryOnlyTheHeadersOfTheRefusingPolicy() {
		assertThat(get("/annotated/repeated")).hasStatusOk();
		assertThat(get("/annotated/repeated")).hasStatusOk();
		MvcTestResult refused = get("/annotated/repeated").exchange();
		assertThat(refused).hasStatus(HttpStatus.TOO_MANY_REQUESTS);
		assertThat(refused.getResponse().getHeaders("RateLimit-Policy")).containsExactly("\"per-day\";q=2;w=86400");
		assertThat(refused.getResponse().getHeaders("X-RateLimit-Limit")).containsExactly("2");
		assertThat(refused.getResponse().getHeaders("X-RateLimit-Remaining")).containsExactly("0");
	}

	@Test
	void classLevelAnnotationShouldLimitEveryPublicMethodByItsOwnPolicy() {
		assertThat(get("/class-level/first")).hasStatusOk()
			.hasHeader("RateLimit-Policy", "\"ClassLevelController.first\";q=1;w=3600");
		assertRefusedBy(get("/class-level/first"), "ClassLevelController.first");
		assertThat(get("/class-level/second")).hasStatusOk()
			.hasHeader("RateLimit-Policy", "\"ClassLevelController.second\";q=1;w=3600");
		assertRefusedBy(get("/class-level/second"), "ClassLevelController.second");
	}

	private MockMvcRequestBuilder get(String uri) {
		return from(this.client, uri);
	}

	private MockMvcRequestBuilder from(String address, String uri) {
		return this.mvc.get().uri(uri).with(Clients.from(address));
	}

	private static void assertRefusedBy(MockMvcRequestBuilder request, String policy) {
		assertRefusedBy(request.exchange(), policy);
	}

	private static void assertRefusedBy(MvcTestResult refused, String policy) {
		assertThat(refused).hasStatus(HttpStatus.TOO_MANY_REQUESTS)
			.hasContentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON)
			.containsHeader("Retry-After")
			.containsHeader("RateLimit")
			.containsHeader("X-RateLimit-Remaining");
		assertThat(ProblemBodies.of(refused)).containsEntry("policy", policy)
			.containsEntry("status", 429)
			.containsEntry("instance", refused.getRequest().getRequestURI());
	}

}
