package io.github.ratelimit.spring.web;

import io.github.ratelimit.spring.RateLimitExceededException;
import io.github.ratelimit.spring.RateLimiterUnavailableException;

import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * Renders a {@link RateLimitExceededException} thrown inside Spring MVC as 429 with {@code Retry-After}, the rate
 * limit headers and the problem body, and a {@link RateLimiterUnavailableException} as 503. Ordered early so that an application's catch-all handler does not turn it into
 * a 500; declare a bean of this type to replace it.
 */
@RestControllerAdvice
@Order(Ordered.HIGHEST_PRECEDENCE + 100)
public class RateLimitExceptionHandler {

	private final RateLimitHeaders headers;

	/**
	 * Creates the handler.
	 * @param headers the header writer
	 */
	public RateLimitExceptionHandler(RateLimitHeaders headers) {
		this.headers = headers;
	}

	/**
	 * Renders a refusal.
	 * @param refusal the exception
	 * @return the 429 response
	 */
	@ExceptionHandler(RateLimitExceededException.class)
	public ResponseEntity<ProblemDetail> handle(RateLimitExceededException refusal) {
		HttpHeaders responseHeaders = new HttpHeaders();
		responseHeaders.addAll(refusal.getHeaders());
		responseHeaders.addAll(this.headers.of(refusal.getPolicyDefinition(), refusal.getDecision()));
		return ResponseEntity.status(refusal.getStatusCode()).headers(responseHeaders).body(refusal.getBody());
	}

	/**
	 * Renders the refusal of a fail-closed policy whose backend cannot be reached.
	 * @param refusal the exception
	 * @return the 503 response
	 */
	@ExceptionHandler(RateLimiterUnavailableException.class)
	public ResponseEntity<ProblemDetail> handle(RateLimiterUnavailableException refusal) {
		return ResponseEntity.status(refusal.getStatusCode()).headers(refusal.getHeaders()).body(refusal.getBody());
	}

}
