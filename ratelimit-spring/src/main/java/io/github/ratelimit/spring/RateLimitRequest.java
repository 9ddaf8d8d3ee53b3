package io.github.ratelimit.spring;

import java.net.URI;
import java.security.Principal;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

/**
 * A web request as rate limiting sees it, whatever the stack that serves it: each stack has a thin adapter (the
 * servlet one wraps an {@code HttpServletRequest}, the WebFlux one a {@code ServerWebExchange}). Key strategies and {@link KeyResolver}s read requests through
 * it.
 */
public interface RateLimitRequest {

	/**
	 * The HTTP method, upper case.
	 * @return the method, such as {@code GET}
	 */
	String method();

	/**
	 * The value of a request header.
	 * @param name the header name, case-insensitive
	 * @return its first value, or {@code null} when absent
	 */
	@Nullable String header(String name);

	/**
	 * The value of a query-string parameter.
	 * @param name the parameter name
	 * @return its first value, or {@code null} when absent
	 */
	@Nullable String queryParameter(String name);

	/**
	 * The address of the connection's client, as the server reports it (after Spring Boot's forwarded-header
	 * handling, when the application turned it on).
	 * @return the client's IP address
	 */
	String remoteAddress();

	/**
	 * The authenticated user.
	 * @return the principal, or {@code null} for an anonymous request
	 */
	@Nullable Principal principal();

	/**
	 * The request's URI as sent, for the {@code instance} of a problem response.
	 * @return the URI, or {@code null} when the request URI cannot be expressed as one
	 */
	@Nullable URI uri();

	/**
	 * The stack's own request object ({@code HttpServletRequest} on servlet, {@code ServerHttpRequest} on WebFlux), the root of {@code expr:} key
	 * expressions.
	 * @return the native request
	 */
	Object nativeRequest();

	/**
	 * An attribute kept with the request (a request attribute on servlet, an exchange attribute on WebFlux), created
	 * on first use: how the filter and {@code @RateLimited} methods share what rate limiting decided for the request
	 * (the policies charged, the headers to show), so that one policy is charged once per request.
	 * @param <T> the attribute's type
	 * @param name the attribute's name
	 * @param ifAbsent creates the attribute the first time it is asked for
	 * @return the attribute
	 */
	<T> T attribute(String name, Supplier<T> ifAbsent);

}
