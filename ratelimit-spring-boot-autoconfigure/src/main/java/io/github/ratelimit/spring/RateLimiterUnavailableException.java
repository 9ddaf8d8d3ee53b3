package io.github.ratelimit.spring;

import java.net.URI;

import io.github.ratelimit.core.Decision;
import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.web.ErrorResponseException;

/**
 * Thrown when a policy that fails closed cannot reach its backend: 503 Service Unavailable with {@code Retry-After}
 * and an RFC 9457 problem body of type {@value #TEMPORARY_REDUCED_CAPACITY}.
 */
public class RateLimiterUnavailableException extends ErrorResponseException {

	/** The problem type, from the IANA HTTP problem types registry. */
	public static final String TEMPORARY_REDUCED_CAPACITY = RateLimitProblems.TEMPORARY_REDUCED_CAPACITY;

	private final PolicyDefinition policy;

	/**
	 * Creates the exception.
	 * @param policy the policy that could not decide
	 * @param decision the stand-in refusal, whose retry-after is when the backend is tried again
	 * @param instance the request's URI, or {@code null} outside a request
	 */
	public RateLimiterUnavailableException(PolicyDefinition policy, Decision decision, @Nullable URI instance) {
		super(HttpStatus.SERVICE_UNAVAILABLE, RateLimitProblems.unavailable(policy.name(), instance), null);
		this.policy = policy;
		getHeaders().set(HttpHeaders.RETRY_AFTER, Long.toString(decision.retryAfterSeconds()));
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
