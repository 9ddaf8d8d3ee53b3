package io.github.ratelimit.spring.web.servlet;

import java.util.function.BiConsumer;

import io.github.ratelimit.spring.CurrentRequest;
import io.github.ratelimit.spring.RateLimitRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;

import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;

/**
 * The servlet request bound to the calling thread by Spring MVC ({@link RequestContextHolder}).
 */
final class ServletCurrentRequest implements CurrentRequest {

	@Override
	public @Nullable RateLimitRequest request() {
		ServletRequestAttributes attributes = attributes();
		return (attributes != null) ? new ServletRateLimitRequest(attributes.getRequest()) : null;
	}

	@Override
	public @Nullable BiConsumer<String, String> responseHeaders() {
		ServletRequestAttributes attributes = attributes();
		HttpServletResponse response = (attributes != null) ? attributes.getResponse() : null;
		return (response != null && !response.isCommitted()) ? response::setHeader : null;
	}

	private static @Nullable ServletRequestAttributes attributes() {
		RequestAttributes attributes = RequestContextHolder.getRequestAttributes();
		return (attributes instanceof ServletRequestAttributes servlet) ? servlet : null;
	}

}
