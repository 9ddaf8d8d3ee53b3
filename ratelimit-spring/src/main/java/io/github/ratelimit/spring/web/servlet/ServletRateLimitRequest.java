package io.github.ratelimit.spring.web.servlet;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.util.function.Supplier;

import io.github.ratelimit.spring.RateLimitRequest;
import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.util.StringUtils;
import org.springframework.web.util.UriUtils;

/**
 * A servlet request as rate limiting sees it. Query parameters are read from the query string only, never from a
 * form body, which the application may still need to read.
 */
final class ServletRateLimitRequest implements RateLimitRequest {


	private final HttpServletRequest request;

	/**
	 * Wraps a servlet request.
	 * @param request the request
	 */
	ServletRateLimitRequest(HttpServletRequest request) {
		this.request = request;
	}

	@Override
	public String method() {
		return this.request.getMethod();
	}

	@Override
	public @Nullable String header(String name) {
		return this.request.getHeader(name);
	}

	@Override
	public @Nullable String queryParameter(String name) {
		String query = this.request.getQueryString();
		if (!StringUtils.hasLength(query)) {
			return null;
		}
		int start = 0;
		while (start <= query.length()) {
			int end = query.indexOf('&', start);
			if (end < 0) {
				end = query.length();
			}
			int equals = query.indexOf('=', start);
			boolean hasValue = equals >= 0 && equals < end;
			String parameter = decode(query.substring(start, hasValue ? equals : end));
			if (parameter.equals(name)) {
				return hasValue ? decode(query.substring(equals + 1, end)) : "";
			}
			start = end + 1;
		}
		return null;
	}

	@Override
	public String remoteAddress() {
		return this.request.getRemoteAddr();
	}

	@Override
	public @Nullable Principal principal() {
		return this.request.getUserPrincipal();
	}

	@Override
	public @Nullable URI uri() {
		try {
			return URI.create(this.request.getRequestURI());
		}
		catch (IllegalArgumentException ex) {
			return null;
		}
	}

	@Override
	public HttpServletRequest nativeRequest() {
		return this.request;
	}

	@Override
	@SuppressWarnings("unchecked")
	public <T> T attribute(String name, Supplier<T> ifAbsent) {
		Object existing = this.request.getAttribute(name);
		if (existing != null) {
			return (T) existing;
		}
		T created = ifAbsent.get();
		this.request.setAttribute(name, created);
		return created;
	}

	private static String decode(String text) {
		try {
			return UriUtils.decode(text.replace('+', ' '), StandardCharsets.UTF_8);
		}
		catch (IllegalArgumentException ex) {
			return text;
		}
	}

}
