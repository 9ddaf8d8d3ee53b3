package io.github.ratelimit.docs.keys;

import io.github.ratelimit.spring.KeyResolver;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The page's {@code bean:} key resolvers: one that reads the request, one that reads the user.
 */
@Configuration(proxyBeanMethods = false)
class KeyResolvers {

	// tag::request[]
	@Bean
	KeyResolver tenantKeyResolver() {
		return (request) -> request.header("X-Tenant"); // null or empty: counted under the client's IP
	}
	// end::request[]

	// tag::user[]
	@Bean
	KeyResolver customerKeyResolver(CustomerDirectory customers) {
		return KeyResolver.afterAuthentication((request) -> (request.principal() != null)
				? customers.idOf(request.principal().getName()) : null); // anonymous: counted under the client's IP
	}
	// end::user[]

}
