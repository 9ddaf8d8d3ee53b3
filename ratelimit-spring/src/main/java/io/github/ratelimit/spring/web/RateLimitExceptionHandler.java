package io.github.ratelimit.spring.web;

import io.github.ratelimit.spring.RateLimitExceededException;
import io.github.ratelimit.spring.RateLimiterUnavailableException;
import io.github.ratelimit.spring.RateLimitedCostException;

import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.web.ErrorResponse;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * Renders a {@link RateLimitExceededException} thrown inside Spring MVC as 429 with the exception's own headers
 * ({@code Retry-After}), the rate limit headers its outcome shows (the same rule as the filter's: none for a local
 * fallback decision) and the problem body, a {@link RateLimiterUnavailableException} as 503 and a
 * {@link RateLimitedCostException} as 400. Ordered early so that an
 * application's catch-all handler does not turn it into a 500; declare a bean of this type to replace it. The body
 * is written as the filter writes it, so the two paths answer alike, with or without Jackson.
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
	public ResponseEntity<String> handle(RateLimitExceededException refusal) {
		HttpHeaders responseHeaders = new HttpHeaders();
		responseHeaders.addAll(refusal.getHeaders());
		this.headers.write(refusal.getOutcome(), responseHeaders::set);
		return problem(refusal, responseHeaders);
	}

	/**
	 * Renders the refusal of a fail-closed policy whose backend cannot be reached.
	 * @param refusal the exception
	 * @return the 503 response
	 */
	@ExceptionHandler(RateLimiterUnavailableException.class)
	public ResponseEntity<String> handle(RateLimiterUnavailableException refusal) {
		return problem(refusal, refusal.getHeaders());
	}

	/**
	 * Renders a {@code @RateLimited} call whose cost expression did not come to a whole number of permits.
	 * @param invalid the exception
	 * @return the 400 response
	 */
	@ExceptionHandler(RateLimitedCostException.class)
	public ResponseEntity<String> handle(RateLimitedCostException invalid) {
		return problem(invalid, invalid.getHeaders());
	}

	private static ResponseEntity<String> problem(ErrorResponse refusal, HttpHeaders headers) {
		return ResponseEntity.status(refusal.getStatusCode())
			.headers(headers)
			.contentType(MediaType.APPLICATION_PROBLEM_JSON)
			.body(ProblemJson.of(refusal.getBody()));
	}

}
