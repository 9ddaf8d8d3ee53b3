package io.github.ratelimit.spring.web.reactive;

import java.nio.charset.StandardCharsets;

import io.github.ratelimit.spring.web.ProblemJson;
import reactor.core.publisher.Mono;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.ErrorResponse;

/**
 * Writes a problem response on WebFlux: its status, its own headers (such as a refusal's {@code Retry-After}) and its
 * {@link ProblemDetail} as {@code application/problem+json}, byte for byte the response the servlet stack writes for
 * the same problem.
 */
final class ReactiveProblemResponseWriter {

	/**
	 * Writes a refusal's headers, status and problem body.
	 * @param refusal the refusal
	 * @param response the response, not yet committed
	 * @return completion of the write
	 */
	Mono<Void> write(ErrorResponse refusal, ServerHttpResponse response) {
		refusal.getHeaders().forEach((name, values) -> response.getHeaders().addAll(name, values));
		return write(refusal.getBody(), response);
	}

	/**
	 * Writes a problem body and its status.
	 * @param problem the problem
	 * @param response the response, not yet committed, its headers already set
	 * @return completion of the write
	 */
	Mono<Void> write(ProblemDetail problem, ServerHttpResponse response) {
		byte[] body = ProblemJson.of(problem).getBytes(StandardCharsets.UTF_8);
		response.setStatusCode(HttpStatusCode.valueOf(problem.getStatus()));
		response.getHeaders().setContentType(MediaType.APPLICATION_PROBLEM_JSON);
		response.getHeaders().setContentLength(body.length);
		DataBuffer buffer = response.bufferFactory().wrap(body);
		return response.writeWith(Mono.just(buffer));
	}

}
