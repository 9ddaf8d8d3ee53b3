package io.github.ratelimit.sample;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpMethod;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configurers.AbstractHttpConfigurer;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;

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
	SecurityFilterChain securityFilterChain(HttpSecurity http) {
		return http
			.authorizeHttpRequests((requests) -> requests.requestMatchers("/api/account/**")
				.authenticated()
				.requestMatchers(HttpMethod.POST, RATELIMITS_ENDPOINT)
				.hasRole(OPERATOR)
				.requestMatchers(HttpMethod.DELETE, RATELIMITS_ENDPOINT)
				.hasRole(OPERATOR)
				.anyRequest()
				.permitAll())
			.httpBasic(withDefaults())
			.sessionManagement((sessions) -> sessions.sessionCreationPolicy(SessionCreationPolicy.STATELESS))
			// CSRF protection defends the session cookie a browser sends by itself; this API keeps no session, and its
			// clients (curl, scripts, other services, the POST and DELETE of /actuator/ratelimits) send their
			// credentials on each request. An application that serves browsers keeps it on.
			.csrf(AbstractHttpConfigurer::disable)
			.build();
	}

	/**
	 * The sample's users, with well-known passwords stored as {@code {noop}} plain text: cheap to check and fine for a
	 * sample. Store real passwords hashed (such as {@code {bcrypt}...}).
	 */
	@Bean
	UserDetailsService users() {
		return new InMemoryUserDetailsManager(
				User.withUsername("alice").password("{noop}alice-password").roles("USER").build(),
				User.withUsername("bob").password("{noop}bob-password").roles("USER").build(),
				User.withUsername("admin").password("{noop}admin-password").roles(OPERATOR).build());
	}

}
