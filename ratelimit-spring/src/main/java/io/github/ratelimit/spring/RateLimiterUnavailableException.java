package io.github.ratelimit.spring;

import java.net.URI;

import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpStatus;
import org.springframework.web.ErrorResponseException;

/**
 * Thrown when a policy that fails closed cannot reach its backend: 503 Service Unavailable with {@code Retry-After}
 * and an RFC 9457 problem body of type {@value #TEMPORARY_REDUCED_CAPACITY}.
 */
public class RateLimiterUnavailableException extends ErrorResponseException {

	/** The problem type, from the IANA HTTP problem types registry. */
	public static final String TEMPORARY_REDUCED_CAPACITY = RateLimitProblems.TEMPORARY_REDUCED_CAPACITY;

	/** The policy that could not decide. */
	private final PolicyDefinition policy;

	/**
	 * Creates the exception.
	 * @param outcome the stand-in refusal, whose retry-after is when the backend is tried again
	 * @param instance the request's URI, or {@code null} outside a request
	 */
	public RateLimiterUnavailableException(RateLimitOutcome outcome, @Nullable URI instance) {
		super(HttpStatus.SERVICE_UNAVAILABLE, RateLimitProblems.unavailable(outcome, instance), null);
		this.policy = outcome.policy();
		RateLimitProblems.retryAfter(outcome.decision(), getHeaders());
	}

	/**
	 * The policy that could not decide.
	 * @return the policy
	 */
	public PolicyDefinition getPolicyDefinition() {
		return this.policy;
	}

	@Override
	public String getMessage() {
		return getBody().getDetail();
	}

}
