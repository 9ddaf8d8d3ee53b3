package io.github.ratelimit.spring;

/**
 * When the web filter applies a policy: before authentication (in front of Spring Security's filter chain), when its
 * key is known from the request alone, or after it, when its key needs the authenticated user.
 */
public enum FilterPhase {

	/**
	 * In front of authentication, so requests that it refuses (failed logins, 401s, 403s) are counted too: policies
	 * keyed by {@code ip}, {@code global}, {@code header:}, {@code param:}, {@code expr:}, or a {@code bean:}
	 * resolver that does not require authentication.
	 */
	BEFORE_AUTHENTICATION,

	/**
	 * Behind authentication, so the key sees the user: policies keyed by {@code principal}, or a {@code bean:}
	 * resolver that {@linkplain KeyResolver#requiresAuthentication() requires authentication}.
	 */
	AFTER_AUTHENTICATION

}
