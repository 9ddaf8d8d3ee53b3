package io.github.ratelimit.spring.web.servlet;

import io.github.ratelimit.spring.RateLimitRequest;
import jakarta.servlet.http.HttpServletRequest;

/**
 * Servlet requests as the servlet filter hands them to key and plan resolvers, for tests in other packages.
 */
public final class ServletRequests {

	private ServletRequests() {
	}

	/**
	 * A servlet request as the filter sees it.
	 * @param request the request
	 * @return its rate limiting view
	 */
	public static RateLimitRequest of(HttpServletRequest request) {
		return new ServletRateLimitRequest(request);
	}

}
