package io.github.ratelimit.spring.web.servlet;

import java.nio.charset.StandardCharsets;

import io.github.ratelimit.spring.RateLimitRequest;
import io.github.ratelimit.spring.web.RateLimitRequestContract;
import jakarta.servlet.http.HttpServletRequest;

import org.springframework.http.MediaType;
import org.springframework.mock.web.MockHttpServletRequest;

/**
 * The servlet adapter's translation of a request: {@link RateLimitRequestContract} over a servlet request as the
 * filter sees it.
 */
class ServletRateLimitRequestTests extends RateLimitRequestContract {

	@Override
	protected RateLimitRequest request(Incoming incoming) {
		MockHttpServletRequest request = new MockHttpServletRequest(incoming.method(), incoming.path());
		request.setQueryString(incoming.query());
		request.setRemoteAddr(incoming.remoteAddress());
		incoming.headers().forEach((name, values) -> values.forEach((value) -> request.addHeader(name, value)));
		if (incoming.user() != null) {
			String user = incoming.user();
			request.setUserPrincipal(() -> user);
		}
		if (incoming.form() != null) {
			request.setContentType(MediaType.APPLICATION_FORM_URLENCODED_VALUE);
			request.setContent(incoming.form().getBytes(StandardCharsets.UTF_8));
			// as a container parses a form body, to which getParameter answers
			for (String field : incoming.form().split("&")) {
				String[] pair = field.split("=", 2);
				request.addParameter(pair[0], (pair.length > 1) ? pair[1] : "");
			}
		}
		return new ServletRateLimitRequest(request);
	}

	@Override
	protected Class<?> nativeRequestType() {
		return HttpServletRequest.class;
	}

}
