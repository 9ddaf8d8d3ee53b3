package io.github.ratelimit.spring.web.servlet;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

import io.github.ratelimit.spring.web.ProblemJson;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.web.ErrorResponse;

/**
 * Writes a problem response from a servlet filter: its status, its own headers (such as a refusal's
 * {@code Retry-After}) and its {@link ProblemDetail} as {@code application/problem+json}, the response Spring MVC
 * renders for the same problem.
 */
class ProblemResponseWriter {

	/**
	 * Writes a refusal's headers, status and problem body.
	 * @param refusal the refusal
	 * @param response the servlet response, not yet committed
	 * @throws IOException when the body cannot be written
	 */
	void write(ErrorResponse refusal, HttpServletResponse response) throws IOException {
		refusal.getHeaders().forEach((name, values) -> values.forEach((value) -> response.addHeader(name, value)));
		write(refusal.getBody(), response);
	}

	/**
	 * Writes a problem body and its status.
	 * @param problem the problem
	 * @param response the servlet response, not yet committed, its headers already set
	 * @throws IOException when the body cannot be written
	 */
	void write(ProblemDetail problem, HttpServletResponse response) throws IOException {
		byte[] body = ProblemJson.of(problem).getBytes(StandardCharsets.UTF_8);
		response.setStatus(problem.getStatus());
		response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
		response.setContentLength(body.length);
		response.getOutputStream().write(body);
	}

}
