package io.github.ratelimit.spring;

import org.jspecify.annotations.Nullable;

/**
 * Finds the client a request is counted for: an address, a user, an API key. Declare one as a bean and name it in
 * configuration with {@code key: bean:<bean name>}.
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

}
