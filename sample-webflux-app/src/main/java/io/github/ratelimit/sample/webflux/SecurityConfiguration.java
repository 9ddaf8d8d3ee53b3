package io.github.ratelimit.sample.webflux;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpMethod;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.config.web.server.ServerHttpSecurity.CsrfSpec;
import org.springframework.security.core.userdetails.MapReactiveUserDetailsService;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.web.server.SecurityWebFilterChain;
import org.springframework.security.web.server.context.NoOpServerSecurityContextRepository;

import static org.springframework.security.config.Customizer.withDefaults;

/**
 * HTTP Basic on {@code /api/account/**} for the users {@code alice} and {@code bob}, and on the writes of the
 * {@code ratelimits} endpoint (resetting a client, setting or removing an override) for the operator {@code admin};
 * everything else, the endpoint's reads included, stays open to anonymous requests.
 */
@Configuration(proxyBeanMethods = false)
class SecurityConfiguration {

	private static final String RATELIMITS_ENDPOINT = "/actuator/ratelimits/**";

	private static final String OPERATOR = "OPERATOR";

	@Bean
	SecurityWebFilterChain securityWebFilterChain(ServerHttpSecurity http) {
		return http
			.authorizeExchange((exchanges) -> exchanges.pathMatchers("/api/account/**")
				.authenticated()
				.pathMatchers(HttpMethod.POST, RATELIMITS_ENDPOINT)
				.hasRole(OPERATOR)
				.pathMatchers(HttpMethod.DELETE, RATELIMITS_ENDPOINT)
				.hasRole(OPERATOR)
				.anyExchange()
				.permitAll())
			.httpBasic(withDefaults())
			.securityContextRepository(NoOpServerSecurityContextRepository.getInstance())
			// CSRF protection defends the session cookie a browser sends by itself; this API keeps no session, and its
			// clients (curl, scripts, other services, the POST and DELETE of /actuator/ratelimits) send their
			// credentials on each request. An application that serves browsers keeps it on.
			.csrf(CsrfSpec::disable)
			.build();
	}

	/**
	 * The sample's users, with well-known passwords stored as {@code {noop}} plain text: cheap to check and fine for a
	 * sample. Store real passwords hashed (such as {@code {bcrypt}...}).
	 */
	@Bean
	MapReactiveUserDetailsService users() {
		return new MapReactiveUserDetailsService(
				User.withUsername("alice").password("{noop}alice-password").roles("USER").build(),
				User.withUsername("bob").password("{noop}bob-password").roles("USER").build(),
				User.withUsername("admin").password("{noop}admin-password").roles(OPERATOR).build());
	}

}
