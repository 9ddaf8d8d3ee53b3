package io.github.ratelimit.docs.keys;

// tag::security[]
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configuration.EnableWebSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;

import static org.springframework.security.config.Customizer.withDefaults;

@Configuration(proxyBeanMethods = false)
@EnableWebSecurity // Spring Boot adds it when it is missing; harmless either way
class SecurityConfiguration {

	@Bean
	SecurityFilterChain securityFilterChain(HttpSecurity http) {
		return http
			.authorizeHttpRequests((requests) -> requests.requestMatchers("/api/account/**")
				.authenticated()
				.anyRequest()
				.permitAll())
			.httpBasic(withDefaults())
			.build();
	}

	@Bean
	UserDetailsService users() { // a sample's users: store real passwords hashed ({bcrypt}...)
		return new InMemoryUserDetailsManager(
				User.withUsername("alice").password("{noop}alice-password").roles("USER").build(),
				User.withUsername("bob").password("{noop}bob-password").roles("USER").build());
	}

}
// end::security[]
