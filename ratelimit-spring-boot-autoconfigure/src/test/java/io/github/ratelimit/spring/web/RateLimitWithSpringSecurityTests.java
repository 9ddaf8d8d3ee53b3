package io.github.ratelimit.spring.web;

import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.util.Base64;
import java.util.stream.Stream;

import io.github.ratelimit.spring.KeyResolver;
import io.github.ratelimit.spring.PlanResolver;
import io.github.ratelimit.spring.RateLimitRequest;
import io.github.ratelimit.test.Clients;
import io.github.ratelimit.test.ProblemBodies;
import io.github.ratelimit.test.TestRedisProperties;
import jakarta.servlet.Filter;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.context.annotation.Bean;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configuration.EnableWebSecurity;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.assertj.MockMvcTester;
import org.springframework.test.web.servlet.assertj.MockMvcTester.MockMvcRequestBuilder;
import org.springframework.test.web.servlet.assertj.MvcTestResult;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.security.config.Customizer.withDefaults;

/**
 * Tests the filters' two positions around Spring Security's filter chain, with the default orders: a policy keyed
 * by the request ({@code guard}, by IP) is enforced before it, so what Spring Security answers itself (failed HTTP
 * Basic and form logins, CSRF refusals) is limited too; a policy keyed by the user ({@code account}, by principal;
 * {@code tenant}, by a resolver that requires authentication) after it, so it counts the user Spring Security
 * authenticated; so is a policy keyed by IP whose plan resolver requires authentication ({@code member}: its plan is
 * the user's authority).
 */
@SpringBootTest(classes = { FilterTestApplication.class, RateLimitWithSpringSecurityTests.SecurityConfiguration.class },
		properties = { "ratelimit.policies.guard.paths=/**", "ratelimit.policies.guard.limits=3/1h",
				"ratelimit.policies.account.paths=/account/**", "ratelimit.policies.account.limits=2/1h",
				"ratelimit.policies.account.key=principal", "ratelimit.policies.tenant.paths=/tenant/**",
				"ratelimit.policies.tenant.limits=1/1h", "ratelimit.policies.tenant.key=bean:userKeyResolver",
				"ratelimit.policies.member.paths=/member/**", "ratelimit.policies.member.plan=bean:authorityPlans",
				"ratelimit.policies.member.default-plan=free", "ratelimit.policies.member.plans.free.limits=1/1h",
				"ratelimit.policies.member.plans.pro.limits=2/1h" })
@AutoConfigureMockMvc
class RateLimitWithSpringSecurityTests {

	/** Where Spring Boot registers Spring Security's filter chain ({@code spring.security.filter.order}). */
	private static final int SPRING_SECURITY_FILTER_ORDER = -100;

	@DynamicPropertySource
	static void redisProperties(DynamicPropertyRegistry registry) {
		TestRedisProperties.register(registry);
	}

	@Autowired
	private MockMvcTester mvc;

	@Test
	void wrongPasswordFloodShouldBeRefusedAfterTheIpPolicysLimit() {
		String address = Clients.newAddress();
		for (int remaining = 2; remaining >= 0; remaining--) {
			assertHeaders(account("alice", "wrong", address), HttpStatus.UNAUTHORIZED, "guard", 3, remaining);
		}
		MvcTestResult refused = account("alice", "wrong", address);
		assertHeaders(refused, HttpStatus.TOO_MANY_REQUESTS, "guard", 3, 0);
		assertThat(refused).containsHeader("Retry-After");
		assertThat(account("alice", "alice-password", address)).hasStatus(HttpStatus.TOO_MANY_REQUESTS);
	}

	@Test
	void formLoginFloodShouldBeRefusedAfterTheIpPolicysLimit() {
		String address = Clients.newAddress();
		for (int i = 0; i < 3; i++) {
			assertThat(login("alice", "wrong", address)).hasStatus(HttpStatus.FOUND)
				.hasRedirectedUrl("/login?error");
		}
		assertThat(login("alice", "wrong", address)).hasStatus(HttpStatus.TOO_MANY_REQUESTS);
	}

	@Test
	void csrfRefusalFloodShouldBeRefusedAfterTheIpPolicysLimit() {
		String address = Clients.newAddress();
		for (int i = 0; i < 3; i++) {
			assertThat(this.mvc.post().uri("/transfer").with(Clients.from(address)).exchange())
				.hasStatus(HttpStatus.FORBIDDEN);
		}
		assertThat(this.mvc.post().uri("/transfer").with(Clients.from(address)).exchange())
			.hasStatus(HttpStatus.TOO_MANY_REQUESTS);
	}

	@Test
	void principalPolicyShouldCountEachUserWhileTheIpPolicyRunsBeforeSecurity() {
		String shared = Clients.newAddress();
		assertHeaders(account("bob", "wrong", shared), HttpStatus.UNAUTHORIZED, "guard", 3, 2);
		assertThat(account("carol", "carol-password", shared)).hasStatusOk();
		assertThat(account("carol", "carol-password", Clients.newAddress())).hasStatusOk();
		assertThat(account("carol", "carol-password", Clients.newAddress()))
			.hasStatus(HttpStatus.TOO_MANY_REQUESTS)
			.hasHeader("RateLimit-Policy", "\"account\";q=2;w=3600");
		assertThat(account("bob", "bob-password", shared)).hasStatusOk();
	}

	@Test
	void responseShouldShowTheHeadersOfTheBindingPolicyWhicheverFilterDecidedIt() {
		String address = Clients.newAddress();
		// a new user at a new address: account (2/1h, by user) has fewer permits left than guard (3/1h, by IP)
		assertHeaders(account("dave", "dave-password", address), HttpStatus.OK, "account", 2, 1);
		// another new user at that address: as many left under each, so guard's headers, written first, stay
		assertHeaders(account("erin", "erin-password", address), HttpStatus.OK, "guard", 3, 1);
		assertHeaders(account("dave", "dave-password", Clients.newAddress()), HttpStatus.OK, "account", 2, 0);
		// a refusal after authentication replaces the headers guard wrote before it
		assertHeaders(account("dave", "dave-password", Clients.newAddress()), HttpStatus.TOO_MANY_REQUESTS,
				"account", 2, 0);
	}

	@Test
	void keyResolverThatRequiresAuthenticationShouldSeeTheUser() {
		String address = Clients.newAddress();
		assertThat(tenant("frank", address)).hasStatusOk();
		assertThat(tenant("frank", Clients.newAddress())).hasStatus(HttpStatus.TOO_MANY_REQUESTS);
		assertThat(tenant("grace", address)).hasStatusOk();
	}

	@Test
	void planResolverThatRequiresAuthenticationShouldSeeTheUser() {
		String address = Clients.newAddress();
		assertThat(member("heidi", address)).hasStatusOk().hasHeader("RateLimit-Policy", "\"member-pro\";q=2;w=3600");
		assertThat(member("heidi", address)).hasStatusOk().hasHeader("RateLimit-Policy", "\"member-pro\";q=2;w=3600");
		MvcTestResult refused = member("heidi", address);
		assertThat(refused).hasStatus(HttpStatus.TOO_MANY_REQUESTS);
		assertThat(ProblemBodies.of(refused)).containsEntry("policy", "member").containsEntry("plan", "pro");
		String other = Clients.newAddress();
		assertThat(member("grace", other)).hasStatusOk().hasHeader("RateLimit-Policy", "\"member-free\";q=1;w=3600");
		assertThat(ProblemBodies.of(member("grace", other))).containsEntry("plan", "free");
	}

	private static void assertHeaders(MvcTestResult result, HttpStatus status, String policy, long capacity,
			long remaining) {
		assertThat(result).hasStatus(status);
		assertThat(result.getResponse().getHeaders("RateLimit-Policy"))
			.containsExactly("\"" + policy + "\";q=" + capacity + ";w=3600");
		assertThat(result.getResponse().getHeaders("RateLimit")).singleElement()
			.asString()
			.startsWith("\"" + policy + "\";r=" + remaining + ";");
		assertThat(result.getResponse().getHeaders("X-RateLimit-Limit")).containsExactly(Long.toString(capacity));
		assertThat(result.getResponse().getHeaders("X-RateLimit-Remaining"))
			.containsExactly(Long.toString(remaining));
		assertThat(result.getResponse().getHeaders("X-RateLimit-Reset")).hasSize(1);
	}

	private MvcTestResult account(String user, String password, String address) {
		return basic(this.mvc.get().uri("/account"), user, password, address).exchange();
	}

	private MvcTestResult member(String user, String address) {
		return basic(this.mvc.get().uri("/member"), user, user + "-password", address).exchange();
	}

	private MvcTestResult tenant(String user, String address) {
		return basic(this.mvc.get().uri("/tenant"), user, user + "-password", address).exchange();
	}

	private MvcTestResult login(String user, String password, String address) {
		return this.mvc.post()
			.uri("/login")
			.with(Clients.from(address))
			.contentType(MediaType.APPLICATION_FORM_URLENCODED)
			.content("username=" + user + "&password=" + password)
			.exchange();
	}

	private static MockMvcRequestBuilder basic(MockMvcRequestBuilder request, String user, String password,
			String address) {
		String credentials = user + ":" + password;
		return request.with(Clients.from(address))
			.header(HttpHeaders.AUTHORIZATION,
					"Basic " + Base64.getEncoder().encodeToString(credentials.getBytes(StandardCharsets.UTF_8)));
	}

	@TestConfiguration(proxyBeanMethods = false)
	@EnableWebSecurity
	static class SecurityConfiguration {

		/**
		 * HTTP Basic and form login, CSRF protection on everything but the login form (so that a flood of failed
		 * logins reaches the password check rather than the CSRF check, which the CSRF test covers).
		 */
		@Bean
		SecurityFilterChain securityFilterChain(HttpSecurity http) {
			return http
				.authorizeHttpRequests((requests) -> requests.requestMatchers("/account/**", "/tenant/**", "/member/**",
						"/transfer")
					.authenticated()
					.anyRequest()
					.permitAll())
				.httpBasic(withDefaults())
				.formLogin(withDefaults())
				.csrf((csrf) -> csrf.ignoringRequestMatchers("/login"))
				.build();
		}

		@Bean
		UserDetailsService users() {
			return new InMemoryUserDetailsManager(Stream
				.concat(Stream.of("alice", "bob", "carol", "dave", "erin", "frank", "grace")
					.map((name) -> User.withUsername(name).password("{noop}" + name + "-password").roles("USER")),
						Stream.of(User.withUsername("heidi").password("{noop}heidi-password").roles("USER", "PRO")))
				.map(User.UserBuilder::build)
				.toList());
		}

		/**
		 * The plan of the authenticated user: {@code pro} for users with role {@code PRO}, else the default.
		 */
		@Bean
		PlanResolver authorityPlans() {
			return new PlanResolver() {

				@Override
				public @Nullable String resolvePlan(String key, @Nullable RateLimitRequest request) {
					Principal user = (request != null) ? request.principal() : null;
					return (user instanceof Authentication authentication && authentication.getAuthorities()
						.stream()
						.anyMatch((authority) -> "ROLE_PRO".equals(authority.getAuthority()))) ? "pro" : null;
				}

				@Override
				public boolean requiresAuthentication() {
					return true;
				}

			};
		}

		@Bean
		KeyResolver userKeyResolver() {
			return KeyResolver.afterAuthentication((request) -> {
				Principal user = request.principal();
				return (user != null) ? "user-" + user.getName() : null;
			});
		}

		@Bean
		FilterRegistrationBean<Filter> springSecurityFilterChainRegistration(
				@Qualifier("springSecurityFilterChain") Filter springSecurityFilterChain) {
			FilterRegistrationBean<Filter> registration = new FilterRegistrationBean<>(springSecurityFilterChain);
			registration.setOrder(SPRING_SECURITY_FILTER_ORDER);
			return registration;
		}

	}

}
