package io.github.ratelimit.spring;

import java.net.URI;

import io.github.ratelimit.core.Decision;
import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;

/**
 * The RFC 9457 problem bodies of refusals, the same whichever path refused: 429 of type {@value #QUOTA_EXCEEDED}
 * when a limit refused, 503 of type {@value #TEMPORARY_REDUCED_CAPACITY} when a fail-closed policy could not reach
 * its backend. Each carries the refusing policy's name as {@code policy}.
 */
public final class RateLimitProblems {

	/** The problem type of a refusal, from the IANA HTTP problem types registry. */
	public static final String QUOTA_EXCEEDED = "https://iana.org/assignments/http-problem-types#quota-exceeded";

	/** The problem type of a fail-closed refusal, from the IANA HTTP problem types registry. */
	public static final String TEMPORARY_REDUCED_CAPACITY = "https://iana.org/assignments/http-problem-types#temporary-reduced-capacity";

	private static final URI QUOTA_EXCEEDED_TYPE = URI.create(QUOTA_EXCEEDED);

	private static final URI TEMPORARY_REDUCED_CAPACITY_TYPE = URI.create(TEMPORARY_REDUCED_CAPACITY);

	private RateLimitProblems() {
	}

	/**
	 * The problem body of a refused outcome.
	 * @param outcome the outcome, refused
	 * @param instance the request's URI, or {@code null} outside a request
	 * @return the problem
	 */
	public static ProblemDetail of(RateLimitOutcome outcome, @Nullable URI instance) {
		return (outcome.kind() == RateLimitOutcome.Kind.FAILED_CLOSED) ? unavailable(outcome.policy().name(), instance)
				: quotaExceeded(outcome.policy().name(), outcome.decision(), instance);
	}

	/**
	 * The problem body of a request a limit refused.
	 * @param policy the policy name
	 * @param decision the refusal
	 * @param instance the request's URI, or {@code null} outside a request
	 * @return the 429 problem
	 */
	public static ProblemDetail quotaExceeded(String policy, Decision decision, @Nullable URI instance) {
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.TOO_MANY_REQUESTS, detail(policy, decision));
		problem.setType(QUOTA_EXCEEDED_TYPE);
		problem.setTitle("Too Many Requests");
		problem.setInstance(instance);
		problem.setProperty("policy", policy);
		return problem;
	}

	/**
	 * The problem body of a request refused because a fail-closed policy could not reach its backend.
	 * @param policy the policy name
	 * @param instance the request's URI, or {@code null} outside a request
	 * @return the 503 problem
	 */
	public static ProblemDetail unavailable(String policy, @Nullable URI instance) {
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE,
				"Rate limit policy '" + policy + "' cannot be checked right now and refuses requests until it can.");
		problem.setType(TEMPORARY_REDUCED_CAPACITY_TYPE);
		problem.setTitle("Service Unavailable");
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
