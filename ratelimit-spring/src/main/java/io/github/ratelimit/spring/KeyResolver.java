package io.github.ratelimit.spring;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.jspecify.annotations.Nullable;

/**
 * Finds the client a request is counted for: an address, a user, an API key. Declare one as a bean and name it in
 * configuration with {@code key: bean:<bean name>}.
 * <p>
 * The filter applies a policy before authentication (in front of Spring Security's filter chain) unless its key
 * needs the authenticated user: a resolver that reads {@link RateLimitRequest#principal()} says so with
 * {@link #requiresAuthentication()}, most simply by being built with {@link #afterAuthentication(KeyResolver)}.
 * <p>
 * Every decision asks {@link #resolveAsync(RateLimitRequest)} (which calls {@link #resolve(RateLimitRequest)} by
 * default), so a resolver that must look the key up (a reactive repository, a remote call) can answer without blocking
 * an event loop; see {@code io.github.ratelimit.spring.web.reactive.ReactiveKeyResolver}. Where the caller waits (the
 * servlet filter, a {@code @RateLimited} method that returns neither a future nor a reactive type), what follows the
 * key runs on the caller's own thread when it is known.
 */
@FunctionalInterface
public interface KeyResolver {

	/**
	 * The client key of a request.
	 * @param request the request
	 * @return the key; a resolver named in configuration may return {@code null} or an empty key when the request
	 * has none, and the request is then counted under the client's IP address
	 */
	@Nullable String resolve(RateLimitRequest request);

	/**
	 * The client key of a request, as every decision asks it. A resolver that looks the key up without blocking
	 * overrides it; no decision then calls {@link #resolve(RateLimitRequest)} (nor does anything else in the
	 * starter): it serves only the application's own callers.
	 * @param request the request
	 * @return the key when known, as {@link #resolve(RateLimitRequest)} gives it: by default, that key at once
	 */
	default CompletionStage<@Nullable String> resolveAsync(RateLimitRequest request) {
		return CompletableFuture.completedFuture(resolve(request));
	}

	/**
	 * Whether this resolver needs the authenticated user, so that the filter must apply its policies after
	 * authentication (after Spring Security's filter chain) rather than before it. Requests that authentication
	 * refuses (401, 403) are then never counted by them.
	 * @return {@code false} unless overridden: the key is known from the request alone
	 */
	default boolean requiresAuthentication() {
		return false;
	}

	/**
	 * A resolver that needs the authenticated user, such as
	 * {@code KeyResolver.afterAuthentication((request) -> tenantOf(request.principal()))}.
	 * @param resolver the resolver
	 * @return a resolver with the same keys that {@linkplain #requiresAuthentication() requires authentication}
	 */
	static KeyResolver afterAuthentication(KeyResolver resolver) {
		return new KeyResolver() {

			@Override
			public @Nullable String resolve(RateLimitRequest request) {
				return resolver.resolve(request);
			}

			@Override
			public CompletionStage<@Nullable String> resolveAsync(RateLimitRequest request) {
				return resolver.resolveAsync(request);
			}

			@Override
			public boolean requiresAuthentication() {
				return true;
			}

		};
	}

}
