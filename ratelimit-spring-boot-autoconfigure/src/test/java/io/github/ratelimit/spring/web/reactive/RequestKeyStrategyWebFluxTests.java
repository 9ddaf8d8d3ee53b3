package io.github.ratelimit.spring.web.reactive;

import java.time.Duration;

import io.github.ratelimit.spring.KeyResolver;
import io.github.ratelimit.test.Clients;
import io.github.ratelimit.test.TestClientWebFilter;
import io.github.ratelimit.test.TestRedisProperties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.core.publisher.Mono;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.webtestclient.autoconfigure.AutoConfigureWebTestClient;
import org.springframework.context.annotation.Bean;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.test.web.reactive.server.WebTestClient.RequestHeadersSpec;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests that each key strategy counts a WebFlux request for the right client, as {@code RequestKeyStrategyTests}
 * does on the servlet stack, and that a strategy that finds nothing counts it under the client's IP address:
 * {@code ip} from the exchange's remote address (IPv6 by its /64), {@code header:}, {@code param:} from the query
 * alone, {@code expr:} over the {@code ServerHttpRequest}, {@code principal} from the exchange's principal, and
 * {@code bean:} with a plain {@link KeyResolver} and with a {@link ReactiveKeyResolver} that answers later.
 */
@SpringBootTest(classes = { WebFluxTestApplication.class, RequestKeyStrategyWebFluxTests.KeyResolverConfiguration.class },
		webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { WebFluxTestApplication.REACTIVE, "ratelimit.policies.by-ip.paths=/ip",
				"ratelimit.policies.by-ip.limits=1/1h", "ratelimit.policies.everyone.paths=/global",
				"ratelimit.policies.everyone.limits=1/1h", "ratelimit.policies.everyone.key=global",
				"ratelimit.policies.by-header.paths=/header", "ratelimit.policies.by-header.limits=1/1h",
				"ratelimit.policies.by-header.key=header:X-Api-Key", "ratelimit.policies.by-param.paths=/param",
				"ratelimit.policies.by-param.limits=1/1h", "ratelimit.policies.by-param.key=param:tenant",
				"ratelimit.policies.by-user.paths=/principal", "ratelimit.policies.by-user.limits=1/1h",
				"ratelimit.policies.by-user.key=principal", "ratelimit.policies.by-expr.paths=/expr",
				"ratelimit.policies.by-expr.limits=1/1h",
				"ratelimit.policies.by-expr.key=expr:headers.getFirst('X-Tenant')",
				"ratelimit.policies.by-bean.paths=/bean", "ratelimit.policies.by-bean.limits=1/1h",
				"ratelimit.policies.by-bean.key=bean:tenantKeyResolver",
				"ratelimit.policies.by-reactive-bean.paths=/reactive-bean",
				"ratelimit.policies.by-reactive-bean.limits=1/1h",
				"ratelimit.policies.by-reactive-bean.key=bean:laterTenantKeyResolver",
				"ratelimit.policies.by-failing-expr.paths=/failing-expr",
				"ratelimit.policies.by-failing-expr.limits=1/1h",
				"ratelimit.policies.by-failing-expr.key=expr:headers.getFirst('X-Tenant').toLowerCase()" })
@AutoConfigureWebTestClient(timeout = "30s")
@ExtendWith(OutputCaptureExtension.class)
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
	void ipShouldCountEveryAddressOfAnIpv6Slash64AsOneClient() {
		assertAdmitted(from("2001:db8:5:1::1").get("/ip"));
		assertRefused(from("2001:db8:5:1:abcd::1").get("/ip"));
		assertAdmitted(from("2001:db8:5:2::1").get("/ip"));
	}

	@Test
	void ipShouldCountAnIpv4MappedAddressAsTheIpv4Address() {
		String client = Clients.newAddress();
		assertAdmitted(from("::ffff:" + client).get("/ip"));
		assertRefused(from(client).get("/ip"));
	}

	@Test
	void fallbackShouldCountAnIpv6ClientByItsSlash64() {
		assertAdmitted(from("2001:db8:6:1::1").get("/header"));
		assertRefused(from("2001:db8:6:1::2").get("/header"));
		assertAdmitted(from("2001:db8:6:2::1").get("/header"));
	}

	@Test
	void globalShouldCountEveryClientTogether() {
		assertAdmitted(get("/global"));
		assertRefused(other().get("/global"));
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
	void paramShouldKeyByTheParameterValue() {
		String tenant = "tenant-" + this.client;
		assertAdmitted(get("/param?tenant=" + tenant));
		assertRefused(other().get("/param?a=1&tenant=" + tenant));
		assertAdmitted(get("/param?tenant=other-" + tenant));
	}

	@Test
	void paramShouldReadTheQueryStringNeverAFormBodyTheApplicationMayNeed() {
		String tenant = "tenant-" + this.client;
		// a form field of that name is not the key: the request counts under the client's address
		assertAdmitted(this.requests.request(HttpMethod.POST, "/param")
			.contentType(MediaType.APPLICATION_FORM_URLENCODED)
			.bodyValue("tenant=" + tenant));
		assertRefused(get("/param"));
		assertAdmitted(get("/param?tenant=" + tenant));
	}

	@Test
	void paramWhenMissingShouldFallBackToTheClientAddress() {
		assertFallsBackToTheClientAddress("/param");
	}

	@Test
	void principalShouldKeyByTheUserName() {
		String alice = "alice-" + this.client;
		assertAdmitted(get("/principal").header(TestClientWebFilter.USER, alice));
		assertRefused(other().get("/principal").header(TestClientWebFilter.USER, alice));
		assertAdmitted(get("/principal").header(TestClientWebFilter.USER, "bob-" + this.client));
	}

	@Test
	void principalWhenAnonymousShouldFallBackToTheClientAddress() {
		assertFallsBackToTheClientAddress("/principal");
	}

	@Test
	void exprShouldKeyByTheExpressionOverTheServerHttpRequest() {
		String tenant = "tenant-" + this.client;
		assertAdmitted(get("/expr").header("X-Tenant", tenant));
		assertRefused(other().get("/expr").header("X-Tenant", tenant));
		assertAdmitted(get("/expr").header("X-Tenant", "other-" + tenant));
	}

	@Test
	void exprWhenNullShouldFallBackToTheClientAddress() {
		assertFallsBackToTheClientAddress("/expr");
	}

	@Test
	void exprWhenItFailsShouldFallBackToTheClientAddressAndWarn(CapturedOutput output) {
		assertFallsBackToTheClientAddress("/failing-expr");
		assertThat(output)
			.contains("Key strategy 'expr:headers.getFirst('X-Tenant').toLowerCase()' failed on a request");
		String tenant = "tenant-" + this.client;
		assertAdmitted(get("/failing-expr").header("X-Tenant", tenant));
		assertRefused(get("/failing-expr").header("X-Tenant", tenant.toUpperCase()));
	}

	@Test
	void headerValueThatLooksLikeAnIpFallbackKeyShouldNotSpendThatClientsQuota() {
		assertAdmitted(other().get("/header").header("X-Api-Key", "ip:" + this.client));
		assertAdmitted(other().get("/header").header("X-Api-Key", "~ip:" + this.client));
		assertAdmitted(get("/header"));
		assertRefused(get("/header"));
		assertRefused(other().get("/header").header("X-Api-Key", "ip:" + this.client));
	}

	@Test
	void beanShouldKeyByTheKeyResolverBean() {
		assertKeyedByTenant("/bean");
	}

	@Test
	void beanWhenItFindsNoKeyShouldFallBackToTheClientAddress() {
		assertFallsBackToTheClientAddress("/bean");
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
