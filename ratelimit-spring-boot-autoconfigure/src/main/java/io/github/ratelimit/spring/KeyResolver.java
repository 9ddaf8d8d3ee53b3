package io.github.ratelimit.spring;

import jakarta.servlet.http.HttpServletRequest;
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
	 * @return the key, or {@code null} or empty when the request has none, in which case the client's IP address is
	 * used
	 */
	@Nullable String resolve(HttpServletRequest request);

}
