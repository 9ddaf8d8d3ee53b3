package io.github.ratelimit.docs.plansandoverrides;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.EnumSet;

import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configuration.EnableWebSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.test.context.TestPropertySource;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.security.config.Customizer.withDefaults;

/**
 * The page's claims about the {@code ratelimits} endpoint under Spring Security, on a real server with Spring
 * Security's filter chain registered as Spring Boot registers it (order -100, every dispatcher type): with Spring
 * Boot's default chain an operator's {@code POST} of an override is refused by the CSRF check, and the client sees 401
 * though its credentials are right; with {@link OperatorSecurity}'s chain operators set and remove overrides, others
 * cannot, and CSRF still protects the application's own writes.
 */
@TestPropertySource(properties = { "ratelimit.backend=in-memory", "ratelimit.policies.orders.limits=10/1m",
		"ratelimit.policies.orders.paths=/api/orders/**", "ratelimit.policies.orders.key=header:X-Api-Key",
		"management.endpoints.web.exposure.include=ratelimits", "management.endpoint.ratelimits.access=unrestricted" })
class OperatorSecurityTests {

	private static final String OVERRIDE = "/actuator/ratelimits/orders/acme/override";

	private static final String OVERRIDE_BODY = "{\"limits\": \"1000/1m\", \"expiresIn\": \"1h\"}";

	private static final HttpClient client = HttpClient.newHttpClient();

	@Nested
	@SpringBootTest(classes = { Application.class, BootDefaultSecurity.class },
			webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
	class WithSpringBootsDefaultChain {

		@LocalServerPort
		private int port;

		@Test
		void overrideByAnOperatorWithoutACsrfTokenIsAnswered401() {
			HttpResponse<String> response = send(this.port, "POST", OVERRIDE, "alice", OVERRIDE_BODY);
			assertThat(response.statusCode()).isEqualTo(401);
			assertThat(response.headers().firstValue("WWW-Authenticate")).hasValueSatisfying(
					(challenge) -> assertThat(challenge).startsWith("Basic"));
			assertThat(send(this.port, "GET", "/actuator/ratelimits/orders/acme", "alice", null).body())
				.contains("\"override\":null");
		}

	}

	@Nested
	@SpringBootTest(classes = { Application.class, OperatorSecurity.class },
			webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
	class WithTheOperatorChain {

		@LocalServerPort
		private int port;

		@Test
		void operatorSetsAndRemovesAnOverride() {
			HttpResponse<String> set = send(this.port, "POST", OVERRIDE, "alice", OVERRIDE_BODY);
			assertThat(set.statusCode()).as(set.body()).isEqualTo(200);
			assertThat(set.body()).contains("\"setBy\":\"alice\"", "\"limits\":[\"1000/1m\"]");
			HttpResponse<String> removed = send(this.port, "DELETE", OVERRIDE, "alice", null);
			assertThat(removed.statusCode()).isEqualTo(200);
			assertThat(removed.body()).contains("\"override\":null");
		}

		@Test
		void anonymousRequestIsUnauthorizedAndAUserWhoIsNoOperatorForbidden() {
			assertThat(send(this.port, "POST", OVERRIDE, null, OVERRIDE_BODY).statusCode()).isEqualTo(401);
			assertThat(send(this.port, "POST", OVERRIDE, "bob", OVERRIDE_BODY).statusCode()).isEqualTo(403);
			assertThat(send(this.port, "GET", "/actuator/ratelimits", "bob", null).statusCode()).isEqualTo(403);
		}

		@Test
		void theApplicationsOwnWritesStillNeedACsrfToken() {
			HttpResponse<String> order = send(this.port, "POST", "/api/orders", "bob", "{}");
			assertThat(order.statusCode()).isEqualTo(401);
			assertThat(order.body()).doesNotContain("ordered");
		}

	}

	private static HttpResponse<String> send(int port, String method, String path, @Nullable String user,
			@Nullable String json) {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
			.header("Accept", "*/*")
			.method(method, (json != null) ? BodyPublishers.ofString(json) : BodyPublishers.noBody());
		if (json != null) {
			request.header("Content-Type", "application/json");
		}
		if (user != null) {
			String credentials = user + ":" + user + "-password";
			request.header("Authorization",
					"Basic " + Base64.getEncoder().encodeToString(credentials.getBytes(StandardCharsets.UTF_8)));
		}
		try {
			return client.send(request.build(), BodyHandlers.ofString());
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * An application with Spring Security, registered as Spring Boot's {@code spring-boot-security} would, and an
	 * operator {@code alice} and a user {@code bob}.
	 */
	@EnableAutoConfiguration
	@EnableWebSecurity
	@Import(Application.Orders.class)
	static class Application {

		@Bean
		UserDetailsService users() {
			return new InMemoryUserDetailsManager(
					User.withUsername("alice").password("{noop}alice-password").roles("OPERATOR").build(),
					User.withUsername("bob").password("{noop}bob-password").roles("USER").build());
		}

		@Bean
		FilterRegistrationBean<Filter> springSecurityFilterChainRegistration(
				@Qualifier("springSecurityFilterChain") Filter springSecurityFilterChain) {
			FilterRegistrationBean<Filter> registration = new FilterRegistrationBean<>(springSecurityFilterChain);
			registration.setOrder(-100);
			registration.setDispatcherTypes(EnumSet.allOf(DispatcherType.class));
			return registration;
		}

		@RestController
		static class Orders {

			@PostMapping("/api/orders")
			String order() {
				return "ordered";
			}

		}

	}

	/**
	 * Spring Boot's default chain ({@code SpringBootWebSecurityConfiguration}): every request authenticated, form login
	 * and HTTP Basic, CSRF protection on.
	 */
	static class BootDefaultSecurity {

		@Bean
		SecurityFilterChain securityFilterChain(HttpSecurity http) {
			return http.authorizeHttpRequests((requests) -> requests.anyRequest().authenticated())
				.formLogin(withDefaults())
				.httpBasic(withDefaults())
				.build();
		}

	}

}
