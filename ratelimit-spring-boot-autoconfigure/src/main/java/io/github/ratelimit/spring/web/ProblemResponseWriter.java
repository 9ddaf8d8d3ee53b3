package io.github.ratelimit.spring.web;

import java.io.IOException;

import jakarta.servlet.http.HttpServletResponse;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.converter.json.ProblemDetailJacksonMixin;
import org.springframework.web.ErrorResponse;

/**
 * Writes an {@link ErrorResponse} outside Spring MVC, from a servlet filter, exactly as Spring MVC would render it:
 * its status, its headers and its {@link ProblemDetail} as {@code application/problem+json}.
 */
public class ProblemResponseWriter {

	private final JsonMapper mapper = JsonMapper.builder().addMixIn(ProblemDetail.class, ProblemDetailJacksonMixin.class)
		.build();

	/**
	 * Writes an error response.
	 * @param error the error response
	 * @param response the servlet response, not yet committed
	 * @throws IOException when the body cannot be written
	 */
	public void write(ErrorResponse error, HttpServletResponse response) throws IOException {
		response.setStatus(error.getStatusCode().value());
		RateLimitHeaders.copy(error.getHeaders(), response);
		response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
		this.mapper.writeValue(response.getOutputStream(), error.getBody());
	}

}
