package io.github.ratelimit.spring.web.reactive;

import java.util.concurrent.CompletionStage;

import io.github.ratelimit.spring.KeyResolver;
import io.github.ratelimit.spring.RateLimitRequest;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

/**
 * A {@link KeyResolver} that looks the key up without blocking, for WebFlux applications: a reactive repository, a
 * remote call. Declare one as a bean and name it in configuration with {@code key: bean:<bean name>}; the WebFlux
 * filter subscribes to its {@code Mono} and an empty one counts the request under the client's IP address. Build one
 * that needs the authenticated user with {@link KeyResolver#afterAuthentication(KeyResolver)}.
 */
@FunctionalInterface
public interface ReactiveKeyResolver extends KeyResolver {

	/**
	 * The client key of a request.
	 * @param request the request
	 * @return the key, or an empty {@code Mono} when the request has none
	 */
	Mono<String> resolveReactive(RateLimitRequest request);

	@Override
	default CompletionStage<@Nullable String> resolveAsync(RateLimitRequest request) {
		return resolveReactive(request).toFuture();
	}

	/**
	 * The key, waiting for it, for the application's own callers: no decision calls it (every decision, the servlet
	 * filter's and every {@code @RateLimited} method's included, asks {@link #resolveAsync}, and one that waits does
	 * so on its own thread, never on an event loop), and nothing else in the starter does.
	 */
	@Override
	default @Nullable String resolve(RateLimitRequest request) {
		return resolveReactive(request).block();
	}

}
