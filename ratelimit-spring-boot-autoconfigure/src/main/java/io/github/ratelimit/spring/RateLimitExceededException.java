package io.github.ratelimit.spring;

import java.net.URI;

import io.github.ratelimit.core.Decision;
import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.ErrorResponseException;

/**
 * Thrown when a rate limit refuses a request. Inside Spring MVC it becomes a 429 Too Many Requests with
 * {@code Retry-After} and an RFC 9457 problem body of type
 * {@value #QUOTA_EXCEEDED}; elsewhere the caller gets the exception, with the decision.
 */
public class RateLimitExceededException extends ErrorResponseException {

	/** The problem type of a refusal, from the IANA HTTP problem types registry. */
	public static final String QUOTA_EXCEEDED = "https://iana.org/assignments/http-problem-types#quota-exceeded";

	private final PolicyDefinition policy;

	private final Decision decision;

	/**
	 * Creates the exception for a refused request.
	 * @param policy the policy that refused it
	 * @param decision the decision
	 * @param instance the request's URI, or {@code null} outside a request
	 */
	public RateLimitExceededException(PolicyDefinition policy, Decision decision, @Nullable URI instance) {
		super(HttpStatus.TOO_MANY_REQUESTS, problem(policy.name(), decision, instance), null);
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

	private static ProblemDetail problem(String policy, Decision decision, @Nullable URI instance) {
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.TOO_MANY_REQUESTS, detail(policy, decision));
		problem.setType(URI.create(QUOTA_EXCEEDED));
		problem.setTitle("Too Many Requests");
		problem.setInstance(instance);
		problem.setProperty("policy", policy);
		return problem;
	}

	private static String detail(String policy, Decision decision) {
		if (!decision.satisfiable()) {
			return "The request costs more than rate limit policy '" + policy + "' ever allows (" + decision.limit()
					+ "); retrying will not help.";
		}
		return "Rate limit policy '" + policy + "' (" + decision.limit() + ") exceeded; retry in "
				+ decision.retryAfterSeconds() + " s.";
	}

}
