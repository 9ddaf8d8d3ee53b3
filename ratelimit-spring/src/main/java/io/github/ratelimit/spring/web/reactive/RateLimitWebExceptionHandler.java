package io.github.ratelimit.spring.web.reactive;

import io.github.ratelimit.spring.RateLimitExceededException;
import io.github.ratelimit.spring.RateLimiterUnavailableException;
import io.github.ratelimit.spring.RateLimitedCostException;
import io.github.ratelimit.spring.web.RateLimitHeaders;
import reactor.core.publisher.Mono;

import org.springframework.core.Ordered;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.ErrorResponse;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebExceptionHandler;

/**
 * Renders the refusals of {@code @RateLimited} methods that reach WebFlux's exception handling outside a controller
 * (a functional endpoint, a web filter, a handler's own error signal) as the filter answers: 429 with the headers of
 * the refusing outcome and the problem body, 503 for a fail-closed policy whose backend cannot be reached, 400 for a
 * cost expression that came to no whole number of permits. Controllers' refusals are rendered by
 * {@link io.github.ratelimit.spring.web.RateLimitExceptionHandler} first, ahead of an application's catch-all
 * handler. Ordered before Spring Boot's error handler ({@code -1}).
 */
final class RateLimitWebExceptionHandler implements WebExceptionHandler, Ordered {

	/** The order: before Spring Boot's {@code DefaultErrorWebExceptionHandler} and Spring's status handler. */
	static final int ORDER = -2;

	private final RateLimitHeaders headers;

	private final ReactiveProblemResponseWriter problems;

	/**
	 * Creates the handler.
	 * @param headers the header writer
	 * @param problems the writer of problem responses
	 */
	RateLimitWebExceptionHandler(RateLimitHeaders headers, ReactiveProblemResponseWriter problems) {
		this.headers = headers;
		this.problems = problems;
	}

	@Override
	public int getOrder() {
		return ORDER;
	}

	@Override
	public Mono<Void> handle(ServerWebExchange exchange, Throwable error) {
		ServerHttpResponse response = exchange.getResponse();
		if (response.isCommitted() || !(error instanceof RateLimitExceededException
				|| error instanceof RateLimiterUnavailableException || error instanceof RateLimitedCostException)) {
			return Mono.error(error);
		}
		if (error instanceof RateLimitExceededException refusal) {
			this.headers.write(refusal.getOutcome(), response.getHeaders()::set);
		}
		return this.problems.write((ErrorResponse) error, response);
	}

}
