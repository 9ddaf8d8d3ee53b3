package io.github.ratelimit.spring.web;

import java.security.Principal;

import io.github.ratelimit.spring.KeyResolver;
import io.github.ratelimit.test.Clients;
import io.github.ratelimit.test.TestRedisProperties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.context.annotation.Bean;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.assertj.MockMvcTester;
import org.springframework.test.web.servlet.assertj.MockMvcTester.MockMvcRequestBuilder;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests that each key strategy counts a request for the right client, and that a strategy that finds nothing
 * counts it under the client's IP address.
 */
@SpringBootTest(classes = { FilterTestApplication.class, RequestKeyStrategyTests.KeyResolverConfiguration.class },
		properties = { "ratelimit.policies.by-ip.paths=/ip", "ratelimit.policies.by-ip.limits=1/1h",
				"ratelimit.policies.everyone.paths=/global", "ratelimit.policies.everyone.limits=1/1h",
				"ratelimit.policies.everyone.key=global", "ratelimit.policies.by-header.paths=/header",
				"ratelimit.policies.by-header.limits=1/1h", "ratelimit.policies.by-header.key=header:X-Api-Key",
				"ratelimit.policies.by-param.paths=/param", "ratelimit.policies.by-param.limits=1/1h",
				"ratelimit.policies.by-param.key=param:tenant", "ratelimit.policies.by-user.paths=/principal",
				"ratelimit.policies.by-user.limits=1/1h", "ratelimit.policies.by-user.key=principal",
				"ratelimit.policies.by-expr.paths=/expr", "ratelimit.policies.by-expr.limits=1/1h",
				"ratelimit.policies.by-expr.key=expr:getHeader('X-Tenant')",
				"ratelimit.policies.by-bean.paths=/bean", "ratelimit.policies.by-bean.limits=1/1h",
				"ratelimit.policies.by-bean.key=bean:tenantKeyResolver",
				"ratelimit.policies.by-failing-expr.paths=/failing-expr",
				"ratelimit.policies.by-failing-expr.limits=1/1h",
				"ratelimit.policies.by-failing-expr.key=expr:getHeader('X-Tenant').toLowerCase()",
				"ratelimit.policies.by-throwing-expr.paths=/throwing-expr",
				"ratelimit.policies.by-throwing-expr.limits=1/1h",
				"ratelimit.policies.by-throwing-expr.key=expr:getHeader('X-Tenant').substring(100)" })
@AutoConfigureMockMvc
@ExtendWith(OutputCaptureExtension.class)
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
	void ipShouldCountEveryAddressOfAnIpv6Slash64AsOneClient() {
		assertAdmitted(get("/ip").with(Clients.from("2001:db8:5:1::1")));
		assertRefused(get("/ip").with(Clients.from("2001:db8:5:1:abcd::1")));
		assertAdmitted(get("/ip").with(Clients.from("2001:db8:5:2::1")));
	}

	@Test
	void ipShouldCountAnIpv4MappedAddressAsTheIpv4Address() {
		String client = Clients.newAddress();
		assertAdmitted(get("/ip").with(Clients.from("::ffff:" + client)));
		assertRefused(get("/ip").with(Clients.from(client)));
	}

	@Test
	void fallbackShouldCountAnIpv6ClientByItsSlash64() {
		assertAdmitted(get("/header").with(Clients.from("2001:db8:6:1::1")));
		assertRefused(get("/header").with(Clients.from("2001:db8:6:1::2")));
		assertAdmitted(get("/header").with(Clients.from("2001:db8:6:2::1")));
	}

	@Test
	void globalShouldCountEveryClientTogether() {
		assertAdmitted(get("/global"));
		assertRefused(get("/global").with(Clients.from(Clients.newAddress())));
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
	void paramShouldKeyByTheParameterValue() {
		String tenant = "tenant-" + this.client;
		assertAdmitted(get("/param?tenant=" + tenant));
		assertRefused(get("/param?a=1&tenant=" + tenant).with(Clients.from(Clients.newAddress())));
		assertAdmitted(get("/param?tenant=other-" + tenant));
	}

	@Test
	void paramShouldReadTheQueryStringNeverAFormBodyTheApplicationMayNeed() {
		String tenant = "tenant-" + this.client;
		// a form field of that name is not the key: the request counts under the client's address
		assertAdmitted(this.mvc.post().uri("/param").with(Clients.from(this.client))
			.contentType(MediaType.APPLICATION_FORM_URLENCODED).content("tenant=" + tenant));
		assertRefused(get("/param"));
		assertAdmitted(get("/param?tenant=" + tenant));
	}

	@Test
	void paramWhenMissingShouldFallBackToTheClientAddress() {
		assertAdmitted(get("/param"));
		assertRefused(get("/param"));
		assertAdmitted(get("/param").with(Clients.from(Clients.newAddress())));
	}

	@Test
	void principalShouldKeyByTheUserName() {
		Principal alice = () -> "alice-" + this.client;
		assertAdmitted(get("/principal").principal(alice));
		assertRefused(get("/principal").principal(alice).with(Clients.from(Clients.newAddress())));
		assertAdmitted(get("/principal").principal(() -> "bob-" + this.client));
	}

	@Test
	void principalWhenAnonymousShouldFallBackToTheClientAddress() {
		assertAdmitted(get("/principal"));
		assertRefused(get("/principal"));
		assertAdmitted(get("/principal").with(Clients.from(Clients.newAddress())));
	}

	@Test
	void exprShouldKeyByTheExpressionOverTheRequest() {
		String tenant = "tenant-" + this.client;
		assertAdmitted(get("/expr").header("X-Tenant", tenant));
		assertRefused(get("/expr").header("X-Tenant", tenant).with(Clients.from(Clients.newAddress())));
		assertAdmitted(get("/expr").header("X-Tenant", "other-" + tenant));
	}

	@Test
	void exprWhenNullShouldFallBackToTheClientAddress() {
		assertAdmitted(get("/expr"));
		assertRefused(get("/expr"));
		assertAdmitted(get("/expr").with(Clients.from(Clients.newAddress())));
	}

	@Test
	void exprWhenItFailsShouldFallBackToTheClientAddressAndWarn(CapturedOutput output) {
		assertAdmitted(get("/failing-expr"));
		assertRefused(get("/failing-expr"));
		assertAdmitted(get("/failing-expr").with(Clients.from(Clients.newAddress())));
		assertThat(output).contains("Key strategy 'expr:getHeader('X-Tenant').toLowerCase()' failed on a request");
		String tenant = "tenant-" + this.client;
		assertAdmitted(get("/failing-expr").header("X-Tenant", tenant));
		assertRefused(get("/failing-expr").header("X-Tenant", tenant.toUpperCase()));
	}

	@Test
	void exprWhenAMethodItCallsThrowsShouldFallBackToTheClientAddress(CapturedOutput output) {
		assertAdmitted(get("/throwing-expr").header("X-Tenant", "short"));
		assertRefused(get("/throwing-expr").header("X-Tenant", "other"));
		assertAdmitted(get("/throwing-expr").header("X-Tenant", "short").with(Clients.from(Clients.newAddress())));
		assertThat(output).contains("Key strategy 'expr:getHeader('X-Tenant').substring(100)' failed on a request")
			.contains("StringIndexOutOfBoundsException");
	}

	@Test
	void headerValueThatLooksLikeAnIpFallbackKeyShouldNotSpendThatClientsQuota() {
		assertAdmitted(get("/header").with(Clients.from(Clients.newAddress())).header("X-Api-Key", "ip:" + this.client));
		assertAdmitted(get("/header").with(Clients.from(Clients.newAddress())).header("X-Api-Key", "~ip:" + this.client));
		assertAdmitted(get("/header"));
		assertRefused(get("/header"));
		assertRefused(get("/header").with(Clients.from(Clients.newAddress())).header("X-Api-Key", "ip:" + this.client));
	}

	@Test
	void beanShouldKeyByTheKeyResolverBean() {
		String tenant = "tenant-" + this.client;
		assertAdmitted(get("/bean").header("X-Tenant", tenant.toUpperCase()));
		assertRefused(get("/bean").header("X-Tenant", tenant).with(Clients.from(Clients.newAddress())));
		assertAdmitted(get("/bean").header("X-Tenant", "other-" + tenant));
	}

	@Test
	void beanWhenItFindsNoKeyShouldFallBackToTheClientAddress() {
		assertAdmitted(get("/bean"));
		assertRefused(get("/bean"));
		assertAdmitted(get("/bean").with(Clients.from(Clients.newAddress())));
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
