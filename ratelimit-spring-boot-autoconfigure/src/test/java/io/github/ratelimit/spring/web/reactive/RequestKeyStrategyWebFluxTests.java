package io.github.ratelimit.spring.web.reactive;

import java.time.Duration;

import io.github.ratelimit.spring.KeyResolver;
import io.github.ratelimit.test.Clients;
import io.github.ratelimit.test.TestClientWebFilter;
import io.github.ratelimit.test.TestRedisProperties;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.webtestclient.autoconfigure.AutoConfigureWebTestClient;
import org.springframework.context.annotation.Bean;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.test.web.reactive.server.WebTestClient.RequestHeadersSpec;


/**
 * The WebFlux filters key their requests by the policy's configured strategy, end to end, as
 * {@code RequestKeyStrategyTests} shows for the servlet filter: the exchange's remote address (never
 * {@code X-Forwarded-For}), a header, the exchange's principal behind authentication, an expression over the
 * {@code ServerHttpRequest}, a plain {@link KeyResolver} bean and a {@link ReactiveKeyResolver} that answers later
 * (or not at all), and the client's address when the strategy finds nothing. Every strategy's cases are tested once
 * over the neutral request ({@code RequestKeyStrategiesTests}), and what the WebFlux adapter puts in that request by
 * its contract ({@code WebFluxRateLimitRequestTests}).
 */
@SpringBootTest(classes = { WebFluxTestApplication.class, RequestKeyStrategyWebFluxTests.KeyResolverConfiguration.class },
		webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { WebFluxTestApplication.REACTIVE, "ratelimit.policies.by-ip.paths=/ip",
				"ratelimit.policies.by-ip.limits=1/1h", "ratelimit.policies.by-header.paths=/header",
				"ratelimit.policies.by-header.limits=1/1h", "ratelimit.policies.by-header.key=header:X-Api-Key",
				"ratelimit.policies.by-user.paths=/principal", "ratelimit.policies.by-user.limits=1/1h",
				"ratelimit.policies.by-user.key=principal", "ratelimit.policies.by-expr.paths=/expr",
				"ratelimit.policies.by-expr.limits=1/1h",
				"ratelimit.policies.by-expr.key=expr:headers.getFirst('X-Tenant')",
				"ratelimit.policies.by-bean.paths=/bean", "ratelimit.policies.by-bean.limits=1/1h",
				"ratelimit.policies.by-bean.key=bean:tenantKeyResolver",
				"ratelimit.policies.by-reactive-bean.paths=/reactive-bean",
				"ratelimit.policies.by-reactive-bean.limits=1/1h",
				"ratelimit.policies.by-reactive-bean.key=bean:laterTenantKeyResolver" })
@AutoConfigureWebTestClient(timeout = "30s")
class RequestKeyStrategyWebFluxTests {

	@DynamicPropertySource
	static void redisProperties(DynamicPropertyRegistry registry) {
		TestRedisProperties.register(registry);
	}

	private final String client = Clients.newAddress();

	private WebFluxRequests requests;

	@Autowired
	void client(WebTestClient client) {
		this.requests = new WebFluxRequests(client, this.client);
	}

	@Test
	void ipShouldKeyByRemoteAddressIgnoringXForwardedFor() {
		assertAdmitted(get("/ip").header("X-Forwarded-For", "192.0.2.1"));
		assertRefused(get("/ip").header("X-Forwarded-For", "192.0.2.2"));
		assertRefused(get("/ip"));
		assertAdmitted(other().get("/ip").header("X-Forwarded-For", this.client));
	}

	@Test
	void headerShouldKeyByTheHeaderValue() {
		String apiKey = "key-" + this.client;
		assertAdmitted(get("/header").header("X-Api-Key", apiKey));
		assertRefused(other().get("/header").header("X-Api-Key", apiKey));
		assertAdmitted(get("/header").header("X-Api-Key", "other-" + apiKey));
	}

	@Test
	void headerWhenMissingShouldFallBackToTheClientAddress() {
		assertFallsBackToTheClientAddress("/header");
	}

	@Test
	void principalShouldKeyByTheUserName() {
		String alice = "alice-" + this.client;
		assertAdmitted(get("/principal").header(TestClientWebFilter.USER, alice));
		assertRefused(other().get("/principal").header(TestClientWebFilter.USER, alice));
		assertAdmitted(get("/principal").header(TestClientWebFilter.USER, "bob-" + this.client));
	}

	@Test
	void exprShouldKeyByTheExpressionOverTheServerHttpRequest() {
		String tenant = "tenant-" + this.client;
		assertAdmitted(get("/expr").header("X-Tenant", tenant));
		assertRefused(other().get("/expr").header("X-Tenant", tenant));
		assertAdmitted(get("/expr").header("X-Tenant", "other-" + tenant));
	}

	@Test
	void beanShouldKeyByTheKeyResolverBean() {
		assertKeyedByTenant("/bean");
	}

	@Test
	void reactiveBeanShouldKeyByTheKeyItAnswersLater() {
		assertKeyedByTenant("/reactive-bean");
	}

	@Test
	void reactiveBeanWhenItAnswersEmptyShouldFallBackToTheClientAddress() {
		assertFallsBackToTheClientAddress("/reactive-bean");
	}

	private void assertKeyedByTenant(String uri) {
		String tenant = "tenant-" + this.client;
		assertAdmitted(get(uri).header("X-Tenant", tenant.toUpperCase()));
		assertRefused(other().get(uri).header("X-Tenant", tenant));
		assertAdmitted(get(uri).header("X-Tenant", "other-" + tenant));
	}

	private void assertFallsBackToTheClientAddress(String uri) {
		assertAdmitted(get(uri));
		assertRefused(get(uri));
		assertAdmitted(other().get(uri));
	}

	private RequestHeadersSpec<?> get(String uri) {
		return this.requests.get(uri);
	}

	private WebFluxRequests other() {
		return from(Clients.newAddress());
	}

	private WebFluxRequests from(String address) {
		return this.requests.from(address);
	}

	private static void assertAdmitted(RequestHeadersSpec<?> request) {
		request.exchange().expectStatus().isOk().expectHeader().exists("RateLimit");
	}

	private static void assertRefused(RequestHeadersSpec<?> request) {
		request.exchange().expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
	}

	@TestConfiguration(proxyBeanMethods = false)
	static class KeyResolverConfiguration {

		@Bean
		KeyResolver tenantKeyResolver() {
			return (request) -> {
				String tenant = request.header("X-Tenant");
				return (tenant != null) ? tenant.toLowerCase() : null;
			};
		}

		/** Answers on another thread, some time after it is asked, as a reactive repository would. */
		@Bean
		ReactiveKeyResolver laterTenantKeyResolver() {
			return (request) -> Mono.justOrEmpty(request.header("X-Tenant"))
				.map(String::toLowerCase)
				.delayElement(Duration.ofMillis(20));
		}

	}

}
