package io.github.ratelimit.spring;

import java.net.URI;

import io.github.ratelimit.core.Decision;
import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.web.ErrorResponseException;

/**
 * Thrown when a rate limit refuses a request. Inside Spring MVC it becomes a 429 Too Many Requests with
 * {@code Retry-After} and an RFC 9457 problem body of type
 * {@value #QUOTA_EXCEEDED}; elsewhere the caller gets the exception, with the decision.
 */
public class RateLimitExceededException extends ErrorResponseException {

	/** The problem type of a refusal, from the IANA HTTP problem types registry. */
	public static final String QUOTA_EXCEEDED = RateLimitProblems.QUOTA_EXCEEDED;

	private final PolicyDefinition policy;

	private final Decision decision;

	/**
	 * Creates the exception for a refused request.
	 * @param policy the policy that refused it
	 * @param decision the decision
	 * @param instance the request's URI, or {@code null} outside a request
	 */
	public RateLimitExceededException(PolicyDefinition policy, Decision decision, @Nullable URI instance) {
		super(HttpStatus.TOO_MANY_REQUESTS, RateLimitProblems.quotaExceeded(policy.name(), decision, instance), null);
		this.policy = policy;
		this.decision = decision;
		getHeaders().set(HttpHeaders.RETRY_AFTER, Long.toString(decision.retryAfterSeconds()));
	}

	/**
	 * The name of the policy that refused the request.
	 * @return the policy name
	 */
	public String getPolicy() {
		return this.policy.name();
	}

	/**
	 * The policy that refused the request.
	 * @return the policy
	 */
	public PolicyDefinition getPolicyDefinition() {
		return this.policy;
	}

	/**
	 * The decision that refused the request.
	 * @return the decision
	 */
	public Decision getDecision() {
		return this.decision;
	}

	@Override
	public String getMessage() {
		return getBody().getDetail();
	}

}
