package io.github.ratelimit.docs.webflux;

import java.util.Map;

import reactor.core.publisher.Mono;

import org.springframework.stereotype.Component;

/**
 * The page's tenants, kept in memory so that its configuration starts without a database.
 */
@Component
class InMemoryTenants implements TenantRepository {

	private final Map<String, Tenant> tenants = Map.of("key-acme", new Tenant("acme", "key-acme"));

	@Override
	public Mono<Tenant> findByApiKey(String apiKey) {
		return Mono.justOrEmpty(this.tenants.get(apiKey));
	}

}
