package io.github.ratelimit.spring.web.reactive;

import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.util.Base64;
import java.util.stream.Stream;

import io.github.ratelimit.autoconfigure.InvalidRateLimitConfigurationException;
import io.github.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.ratelimit.autoconfigure.RateLimitReactiveAutoConfiguration;
import io.github.ratelimit.autoconfigure.RateLimitRedisAutoConfiguration;
import io.github.ratelimit.spring.KeyResolver;
import io.github.ratelimit.test.Clients;
import io.github.ratelimit.test.TestRedisProperties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.webtestclient.autoconfigure.AutoConfigureWebTestClient;
import org.springframework.context.annotation.Bean;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.security.config.annotation.web.reactive.EnableWebFluxSecurity;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.core.userdetails.MapReactiveUserDetailsService;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.web.server.SecurityWebFilterChain;
import org.springframework.security.web.server.WebFilterChainProxy;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.reactive.server.EntityExchangeResult;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.test.web.reactive.server.WebTestClient.RequestHeadersSpec;

import static io.github.ratelimit.spring.web.reactive.WebFluxRequests.exchange;
import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.security.config.Customizer.withDefaults;

/**
 * Tests the WebFlux filters' two positions around Spring Security WebFlux's {@link WebFilterChainProxy}, with the
 * default orders, as {@code RateLimitWithSpringSecurityTests} does on the servlet stack: a policy keyed by the request
 * ({@code guard}, by IP) is enforced before it, so what Spring Security answers itself (failed HTTP Basic logins,
 * CSRF refusals) is limited too; a policy keyed by the user ({@code account}, by principal; {@code tenant}, by a
 * resolver that requires authentication) after it, so it counts the user Spring Security authenticated.
 */
@SpringBootTest(classes = { WebFluxTestApplication.class, RateLimitWithSpringSecurityWebFluxTests.SecurityConfiguration.class },
		webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { WebFluxTestApplication.REACTIVE, "ratelimit.policies.guard.paths=/**",
				"ratelimit.policies.guard.limits=3/1h", "ratelimit.policies.account.paths=/account/**",
				"ratelimit.policies.account.limits=2/1h", "ratelimit.policies.account.key=principal",
				"ratelimit.policies.tenant.paths=/tenant/**", "ratelimit.policies.tenant.limits=1/1h",
				"ratelimit.policies.tenant.key=bean:userKeyResolver" })
@AutoConfigureWebTestClient(timeout = "30s")
class RateLimitWithSpringSecurityWebFluxTests {

	@DynamicPropertySource
	static void redisProperties(DynamicPropertyRegistry registry) {
		TestRedisProperties.register(registry);
	}

	@Autowired
	private WebTestClient client;

	@Test
	void wrongPasswordFloodShouldBeRefusedAfterTheIpPolicysLimit() {
		String address = Clients.newAddress();
		for (int remaining = 2; remaining >= 0; remaining--) {
			assertHeaders(exchange(account("alice", "wrong", address)), HttpStatus.UNAUTHORIZED, "guard", 3, remaining);
		}
		EntityExchangeResult<byte[]> refused = exchange(account("alice", "wrong", address));
		assertHeaders(refused, HttpStatus.TOO_MANY_REQUESTS, "guard", 3, 0);
		assertThat(refused.getResponseHeaders().getFirst("Retry-After")).isNotNull();
		assertThat(exchange(account("alice", "alice-password", address)).getStatus())
			.isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
	}

	@Test
	void csrfRefusalFloodShouldBeRefusedAfterTheIpPolicysLimit() {
		WebFluxRequests requests = new WebFluxRequests(this.client, Clients.newAddress());
		for (int i = 0; i < 3; i++) {
			requests.request(HttpMethod.POST, "/transfer").exchange().expectStatus().isForbidden();
		}
		requests.request(HttpMethod.POST, "/transfer").exchange().expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
	}

	@Test
	void principalPolicyShouldCountEachUserWhileTheIpPolicyRunsBeforeSecurity() {
		String shared = Clients.newAddress();
		assertHeaders(exchange(account("bob", "wrong", shared)), HttpStatus.UNAUTHORIZED, "guard", 3, 2);
		assertThat(exchange(account("carol", "carol-password", shared)).getStatus()).isEqualTo(HttpStatus.OK);
		assertThat(exchange(account("carol", "carol-password", Clients.newAddress())).getStatus())
			.isEqualTo(HttpStatus.OK);
		EntityExchangeResult<byte[]> refused = exchange(account("carol", "carol-password", Clients.newAddress()));
		assertThat(refused.getStatus()).isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
		assertThat(refused.getResponseHeaders().getFirst("RateLimit-Policy")).isEqualTo("\"account\";q=2;w=3600");
		assertThat(exchange(account("bob", "bob-password", shared)).getStatus()).isEqualTo(HttpStatus.OK);
	}

	@Test
	void responseShouldShowTheHeadersOfTheBindingPolicyWhicheverFilterDecidedIt() {
		String address = Clients.newAddress();
		// a new user at a new address: account (2/1h, by user) has fewer permits left than guard (3/1h, by IP)
		assertHeaders(exchange(account("dave", "dave-password", address)), HttpStatus.OK, "account", 2, 1);
		// another new user at that address: as many left under each, so guard's headers, written first, stay
		assertHeaders(exchange(account("erin", "erin-password", address)), HttpStatus.OK, "guard", 3, 1);
		assertHeaders(exchange(account("dave", "dave-password", Clients.newAddress())), HttpStatus.OK, "account", 2,
				0);
		// a refusal after authentication replaces the headers guard wrote before it
		assertHeaders(exchange(account("dave", "dave-password", Clients.newAddress())),
				HttpStatus.TOO_MANY_REQUESTS, "account", 2, 0);
	}

	@Test
	void keyResolverThatRequiresAuthenticationShouldSeeTheUser() {
		String address = Clients.newAddress();
		assertThat(exchange(basic("/tenant", "frank", "frank-password", address)).getStatus())
			.isEqualTo(HttpStatus.OK);
		assertThat(exchange(basic("/tenant", "frank", "frank-password", Clients.newAddress())).getStatus())
			.isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
		assertThat(exchange(basic("/tenant", "grace", "grace-password", address)).getStatus())
			.isEqualTo(HttpStatus.OK);
	}

	@ParameterizedTest
	@ValueSource(ints = { -110, -200 })
	void principalFilterOrderNotAfterTheFirstShouldFailStartUp(int principalOrder) {
		new ReactiveWebApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(RateLimitRedisAutoConfiguration.class,
					RateLimitAutoConfiguration.class, RateLimitReactiveAutoConfiguration.class))
			.withPropertyValues("ratelimit.backend=in-memory", "ratelimit.filter.principal-order=" + principalOrder)
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure()).rootCause()
					.isInstanceOf(InvalidRateLimitConfigurationException.class)
					.hasMessageContaining("ratelimit.filter.order");
				assertThat(((InvalidRateLimitConfigurationException) rootCause(context.getStartupFailure()))
					.getProperty()).isEqualTo("ratelimit.filter.principal-order");
			});
	}

	private static Throwable rootCause(Throwable failure) {
		Throwable cause = failure;
		while (cause.getCause() != null) {
			cause = cause.getCause();
		}
		return cause;
	}

	private static void assertHeaders(EntityExchangeResult<byte[]> result, HttpStatus status, String policy,
			long capacity, long remaining) {
		assertThat(result.getStatus()).isEqualTo(status);
		HttpHeaders headers = result.getResponseHeaders();
		assertThat(headers.get("RateLimit-Policy"))
			.containsExactly("\"" + policy + "\";q=" + capacity + ";w=3600");
		assertThat(headers.get("RateLimit")).singleElement()
			.asString()
			.startsWith("\"" + policy + "\";r=" + remaining + ";");
		assertThat(headers.get("X-RateLimit-Limit")).containsExactly(Long.toString(capacity));
		assertThat(headers.get("X-RateLimit-Remaining")).containsExactly(Long.toString(remaining));
		assertThat(headers.get("X-RateLimit-Reset")).hasSize(1);
	}

	private RequestHeadersSpec<?> account(String user, String password, String address) {
		return basic("/account", user, password, address);
	}

	private RequestHeadersSpec<?> basic(String uri, String user, String password, String address) {
		String credentials = user + ":" + password;
		return new WebFluxRequests(this.client, address).get(uri)
			.header(HttpHeaders.AUTHORIZATION,
					"Basic " + Base64.getEncoder().encodeToString(credentials.getBytes(StandardCharsets.UTF_8)));
	}

	@TestConfiguration(proxyBeanMethods = false)
	@EnableWebFluxSecurity
	static class SecurityConfiguration {

		/** HTTP Basic, CSRF protection on (WebFlux's default). */
		@Bean
		SecurityWebFilterChain securityWebFilterChain(ServerHttpSecurity http) {
			return http
				.authorizeExchange((exchanges) -> exchanges.pathMatchers("/account/**", "/tenant/**", "/transfer")
					.authenticated()
					.anyExchange()
					.permitAll())
				.httpBasic(withDefaults())
				.build();
		}

		@Bean
		MapReactiveUserDetailsService users() {
			return new MapReactiveUserDetailsService(Stream.of("alice", "bob", "carol", "dave", "erin", "frank", "grace")
				.map((name) -> User.withUsername(name).password("{noop}" + name + "-password").roles("USER").build())
				.toList());
		}

		@Bean
		KeyResolver userKeyResolver() {
			return KeyResolver.afterAuthentication((request) -> {
				Principal user = request.principal();
				return (user != null) ? "user-" + user.getName() : null;
			});
		}

	}

}
