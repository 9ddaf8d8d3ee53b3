package io.github.ratelimit.docs.plansandoverrides;

import org.springframework.context.annotation.Bean;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;

import static org.springframework.security.config.Customizer.withDefaults;

/**
 * The page's Spring Security configuration for the {@code ratelimits} endpoint: operators only, and no CSRF token
 * asked of its writes. Not a {@code @Configuration} itself, so that the page's configuration examples start without
 * Spring Security; {@link OperatorSecurityTests} imports it.
 */
class OperatorSecurity {

	// tag::security[]
	@Bean
	SecurityFilterChain securityFilterChain(HttpSecurity http) {
		return http
			.authorizeHttpRequests((requests) -> requests.requestMatchers("/actuator/ratelimits/**")
				.hasRole("OPERATOR")
				.anyRequest()
				.authenticated())
			.httpBasic(withDefaults())
			// the endpoint's POST and DELETE carry the operator's credentials, not a browser's session cookie: no
			// CSRF token is asked of them; every other POST, PUT and DELETE still needs one
			.csrf((csrf) -> csrf.ignoringRequestMatchers("/actuator/ratelimits/**"))
			.build();
	}
	// end::security[]

}
