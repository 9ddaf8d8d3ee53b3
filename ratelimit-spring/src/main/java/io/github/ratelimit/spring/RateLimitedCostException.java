package io.github.ratelimit.spring;

import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.ErrorResponseException;

/**
 * Thrown when the {@code cost} expression of a {@code @RateLimited} call does not come to a whole number of at least
 * one permit (it is below 1, not a number, or fails): the call is refused without being charged. Inside Spring MVC
 * it becomes a 400 Bad Request; elsewhere the caller gets the exception.
 */
public class RateLimitedCostException extends ErrorResponseException {

	/** What the expression came to, for logs. */
	private final String reason;

	/**
	 * Creates the exception.
	 * @param reason what the expression came to, for logs (the response does not show it)
	 * @param cause the evaluation error, if any
	 */
	public RateLimitedCostException(String reason, @Nullable Throwable cause) {
		super(HttpStatus.BAD_REQUEST, ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST,
				"The cost of this request could not be determined: it must be a whole number of at least 1 permit."),
				cause);
		this.reason = reason;
	}

	@Override
	public String getMessage() {
		return this.reason;
	}

}
