package io.github.ratelimit.spring.web;

import java.security.Principal;

import io.github.ratelimit.spring.KeyResolver;
import io.github.ratelimit.test.Clients;
import io.github.ratelimit.test.TestRedisProperties;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.context.annotation.Bean;
import org.springframework.http.HttpStatus;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.assertj.MockMvcTester;
import org.springframework.test.web.servlet.assertj.MockMvcTester.MockMvcRequestBuilder;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The servlet filter keys its requests by the policy's configured strategy, end to end: the connection's address
 * (never {@code X-Forwarded-For}), a header, the user behind authentication, an expression over the
 * {@code HttpServletRequest}, a resolver bean, and the client's address when the strategy finds nothing. Every
 * strategy's cases are tested once over the neutral request ({@code RequestKeyStrategiesTests}), and what the servlet
 * adapter puts in that request by its contract ({@code ServletRateLimitRequestTests}).
 */
@SpringBootTest(classes = { FilterTestApplication.class, RequestKeyStrategyTests.KeyResolverConfiguration.class },
		properties = { "ratelimit.policies.by-ip.paths=/ip", "ratelimit.policies.by-ip.limits=1/1h",
				"ratelimit.policies.by-header.paths=/header", "ratelimit.policies.by-header.limits=1/1h",
				"ratelimit.policies.by-header.key=header:X-Api-Key", "ratelimit.policies.by-user.paths=/principal",
				"ratelimit.policies.by-user.limits=1/1h", "ratelimit.policies.by-user.key=principal",
				"ratelimit.policies.by-expr.paths=/expr", "ratelimit.policies.by-expr.limits=1/1h",
				"ratelimit.policies.by-expr.key=expr:getHeader('X-Tenant')",
				"ratelimit.policies.by-bean.paths=/bean", "ratelimit.policies.by-bean.limits=1/1h",
				"ratelimit.policies.by-bean.key=bean:tenantKeyResolver" })
@AutoConfigureMockMvc
class RequestKeyStrategyTests {

	@DynamicPropertySource
	static void redisProperties(DynamicPropertyRegistry registry) {
		TestRedisProperties.register(registry);
	}

	@Autowired
	private MockMvcTester mvc;

	private final String client = Clients.newAddress();

	@Test
	void ipShouldKeyByRemoteAddressIgnoringXForwardedFor() {
		assertAdmitted(get("/ip").header("X-Forwarded-For", "192.0.2.1"));
		assertRefused(get("/ip").header("X-Forwarded-For", "192.0.2.2"));
		assertRefused(get("/ip"));
		assertAdmitted(get("/ip").with(Clients.from(Clients.newAddress())).header("X-Forwarded-For", this.client));
	}

	@Test
	void headerShouldKeyByTheHeaderValue() {
		String apiKey = "key-" + this.client;
		assertAdmitted(get("/header").header("X-Api-Key", apiKey));
		assertRefused(get("/header").header("X-Api-Key", apiKey).with(Clients.from(Clients.newAddress())));
		assertAdmitted(get("/header").header("X-Api-Key", "other-" + apiKey));
	}

	@Test
	void headerWhenMissingShouldFallBackToTheClientAddress() {
		assertAdmitted(get("/header"));
		assertRefused(get("/header"));
		assertAdmitted(get("/header").with(Clients.from(Clients.newAddress())));
	}

	@Test
	void principalShouldKeyByTheUserName() {
		Principal alice = () -> "alice-" + this.client;
		assertAdmitted(get("/principal").principal(alice));
		assertRefused(get("/principal").principal(alice).with(Clients.from(Clients.newAddress())));
		assertAdmitted(get("/principal").principal(() -> "bob-" + this.client));
	}

	@Test
	void exprShouldKeyByTheExpressionOverTheRequest() {
		String tenant = "tenant-" + this.client;
		assertAdmitted(get("/expr").header("X-Tenant", tenant));
		assertRefused(get("/expr").header("X-Tenant", tenant).with(Clients.from(Clients.newAddress())));
		assertAdmitted(get("/expr").header("X-Tenant", "other-" + tenant));
	}

	@Test
	void beanShouldKeyByTheKeyResolverBean() {
		String tenant = "tenant-" + this.client;
		assertAdmitted(get("/bean").header("X-Tenant", tenant.toUpperCase()));
		assertRefused(get("/bean").header("X-Tenant", tenant).with(Clients.from(Clients.newAddress())));
		assertAdmitted(get("/bean").header("X-Tenant", "other-" + tenant));
	}

	private MockMvcRequestBuilder get(String uri) {
		return this.mvc.get().uri(uri).with(Clients.from(this.client));
	}

	private static void assertAdmitted(MockMvcRequestBuilder request) {
		assertThat(request).hasStatusOk().containsHeader("RateLimit");
	}

	private static void assertRefused(MockMvcRequestBuilder request) {
		assertThat(request).hasStatus(HttpStatus.TOO_MANY_REQUESTS);
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

	}

}
