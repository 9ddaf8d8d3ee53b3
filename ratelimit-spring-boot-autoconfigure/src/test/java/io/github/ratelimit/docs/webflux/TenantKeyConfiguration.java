package io.github.ratelimit.docs.webflux;

// tag::tenant-key[]
import io.github.ratelimit.spring.web.reactive.ReactiveKeyResolver;
import reactor.core.publisher.Mono;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration(proxyBeanMethods = false)
class TenantKeyConfiguration {

	@Bean // key: bean:tenant
	ReactiveKeyResolver tenant(TenantRepository tenants) {
		return (request) -> {
			String apiKey = request.header("X-Api-Key");
			// an empty Mono counts the request under the client IP
			return (apiKey != null) ? tenants.findByApiKey(apiKey).map(Tenant::id) : Mono.empty();
		};
	}

}
// end::tenant-key[]
