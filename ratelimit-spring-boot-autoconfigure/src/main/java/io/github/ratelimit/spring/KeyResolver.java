package io.github.ratelimit.spring;

import org.jspecify.annotations.Nullable;

/**
 * Finds the client a request is counted for: an address, a user, an API key. Declare one as a bean and name it in
 * configuration with {@code key: bean:<bean name>}.
 * <p>
 * The filter applies a policy before authentication (in front of Spring Security's filter chain) unless its key
 * needs the authenticated user: a resolver that reads {@link RateLimitRequest#principal()} says so with
 * {@link #requiresAuthentication()}, most simply by being built with {@link #afterAuthentication(KeyResolver)}.
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
			public boolean requiresAuthentication() {
				return true;
			}

		};
	}

}
