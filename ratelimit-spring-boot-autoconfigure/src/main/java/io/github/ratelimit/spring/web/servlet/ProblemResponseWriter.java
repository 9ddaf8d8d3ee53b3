package io.github.ratelimit.spring.web.servlet;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

import io.github.ratelimit.spring.web.ProblemJson;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;

/**
 * Writes a refusal's {@link ProblemDetail} from a servlet filter as {@code application/problem+json}, the body
 * Spring MVC renders for the same problem.
 */
public class ProblemResponseWriter {

	/**
	 * Writes a problem body and its status.
	 * @param problem the problem
	 * @param response the servlet response, not yet committed, its headers already set
	 * @throws IOException when the body cannot be written
	 */
	public void write(ProblemDetail problem, HttpServletResponse response) throws IOException {
		byte[] body = ProblemJson.of(problem).getBytes(StandardCharsets.UTF_8);
		response.setStatus(problem.getStatus());
		response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
		response.setContentLength(body.length);
		response.getOutputStream().write(body);
	}

}
