package io.github.ratelimit.spring;

import java.net.URI;

import io.github.ratelimit.core.Decision;
import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpStatus;
import org.springframework.web.ErrorResponseException;

/**
 * Thrown when a rate limit refuses a request. Inside Spring MVC it becomes a 429 Too Many Requests with
 * {@code Retry-After} (none when the request can never succeed), the rate limit headers and an RFC 9457 problem body
 * of type {@value #QUOTA_EXCEEDED}; elsewhere the caller gets the exception, with the decision.
 */
public class RateLimitExceededException extends ErrorResponseException {

	/** The problem type of a refusal, from the IANA HTTP problem types registry. */
	public static final String QUOTA_EXCEEDED = RateLimitProblems.QUOTA_EXCEEDED;

	/** The refusal: the policy and its decision. */
	private final RateLimitOutcome outcome;

	/**
	 * Creates the exception for a refused request.
	 * @param outcome the refusal: a limit's, or the local fallback's
	 * @param instance the request's URI, or {@code null} outside a request
	 */
	public RateLimitExceededException(RateLimitOutcome outcome, @Nullable URI instance) {
		super(HttpStatus.TOO_MANY_REQUESTS, RateLimitProblems.quotaExceeded(outcome, instance), null);
		this.outcome = outcome;
		RateLimitProblems.retryAfter(outcome.decision(), getHeaders());
	}

	/**
	 * The name of the policy that refused the request.
	 * @return the policy name
	 */
	public String getPolicy() {
		return this.outcome.policy().name();
	}

	/**
	 * The policy that refused the request.
	 * @return the policy
	 */
	public PolicyDefinition getPolicyDefinition() {
		return this.outcome.policy();
	}

	/**
	 * The decision that refused the request.
	 * @return the decision
	 */
	public Decision getDecision() {
		return this.outcome.decision();
	}

	/**
	 * What enforcing the policy came to: the decision, and whether the shared limits or the local fallback made it.
	 * @return the outcome
	 */
	public RateLimitOutcome getOutcome() {
		return this.outcome;
	}

	@Override
	public String getMessage() {
		return getBody().getDetail();
	}

}
