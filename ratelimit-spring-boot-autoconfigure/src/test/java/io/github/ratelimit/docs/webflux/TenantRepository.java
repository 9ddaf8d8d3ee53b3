package io.github.ratelimit.docs.webflux;

import reactor.core.publisher.Mono;

/**
 * The page's reactive tenant table, which {@link TenantKeyConfiguration}'s resolver looks API keys up in.
 */
interface TenantRepository {

	Mono<Tenant> findByApiKey(String apiKey);

}
