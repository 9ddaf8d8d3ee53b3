package io.github.ratelimit.spring.web;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

import io.github.ratelimit.test.Clients;
import io.github.ratelimit.test.TestRedisProperties;
import jakarta.servlet.Filter;
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
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configuration.EnableWebSecurity;
import org.springframework.security.config.annotation.web.configurers.AbstractHttpConfigurer;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.assertj.MockMvcTester;
import org.springframework.test.web.servlet.assertj.MvcTestResult;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.security.config.Customizer.withDefaults;

/**
 * Tests that a {@code principal} policy, with the filter at its default order, counts the user Spring Security
 * authenticated: its filter chain runs first, at the order Spring Boot gives it.
 */
@SpringBootTest(
		classes = { FilterTestApplication.class, PrincipalKeyWithSpringSecurityTests.SecurityConfiguration.class },
		properties = { "ratelimit.policies.account.paths=/account/**", "ratelimit.policies.account.limits=1/1h",
				"ratelimit.policies.account.key=principal" })
@AutoConfigureMockMvc
class PrincipalKeyWithSpringSecurityTests {

	/** Where Spring Boot registers Spring Security's filter chain ({@code spring.security.filter.order}). */
	private static final int SPRING_SECURITY_FILTER_ORDER = -100;

	@DynamicPropertySource
	static void redisProperties(DynamicPropertyRegistry registry) {
		TestRedisProperties.register(registry);
	}

	@Autowired
	private MockMvcTester mvc;

	@Test
	void principalShouldBeTheUserSpringSecurityAuthenticated() {
		String address = Clients.newAddress();
		assertThat(get("alice", address)).hasStatusOk().hasHeader("X-RateLimit-Remaining", "0");
		assertThat(get("alice", Clients.newAddress())).hasStatus(HttpStatus.TOO_MANY_REQUESTS);
		assertThat(get("bob", address)).hasStatusOk();
	}

	@Test
	void unauthenticatedRequestShouldBeAnsweredBySpringSecurityBeforeTheFilter() {
		MvcTestResult result = this.mvc.get().uri("/account").with(Clients.from(Clients.newAddress())).exchange();
		assertThat(result).hasStatus(HttpStatus.UNAUTHORIZED).doesNotContainHeader("RateLimit");
	}

	private MvcTestResult get(String user, String address) {
		String credentials = user + ":" + user + "-password";
		return this.mvc.get()
			.uri("/account")
			.with(Clients.from(address))
			.header(HttpHeaders.AUTHORIZATION,
					"Basic " + Base64.getEncoder().encodeToString(credentials.getBytes(StandardCharsets.UTF_8)))
			.exchange();
	}

	@TestConfiguration(proxyBeanMethods = false)
	@EnableWebSecurity
	static class SecurityConfiguration {

		@Bean
		SecurityFilterChain securityFilterChain(HttpSecurity http) {
			return http.authorizeHttpRequests((requests) -> requests.requestMatchers("/account/**")
				.authenticated()
				.anyRequest()
				.permitAll()).httpBasic(withDefaults()).csrf(AbstractHttpConfigurer::disable).build();
		}

		@Bean
		UserDetailsService users() {
			return new InMemoryUserDetailsManager(
					User.withUsername("alice").password("{noop}alice-password").roles("USER").build(),
					User.withUsername("bob").password("{noop}bob-password").roles("USER").build());
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
