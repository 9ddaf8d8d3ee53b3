package io.github.ratelimit.spring;

import java.net.URI;
import java.time.Duration;

import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.Limit;
import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;

/**
 * What a refusal says besides the rate limit headers, the same whichever path refused: its RFC 9457 problem body and
 * its {@code Retry-After}. A 429 is of type {@value #QUOTA_EXCEEDED}, a 503 (a fail-closed policy could not reach its
 * backend) of type {@value #TEMPORARY_REDUCED_CAPACITY}. Both carry the policy's name as {@code policy} and the
 * {@link PolicyItems item names} of the refusing limits as {@code violated-policies}: the limits that refused (for a
 * request that can never succeed, those whose capacity is below its cost), or for a 503 every limit of the policy,
 * since none could be checked.
 */
final class RateLimitProblems {

	/** The problem type of a refusal, from the IANA HTTP problem types registry. */
	static final String QUOTA_EXCEEDED = "https://iana.org/assignments/http-problem-types#quota-exceeded";

	/** The problem type of a fail-closed refusal, from the IANA HTTP problem types registry. */
	static final String TEMPORARY_REDUCED_CAPACITY = "https://iana.org/assignments/http-problem-types#temporary-reduced-capacity";

	/** The problem member that names the refusing policy. */
	static final String POLICY = "policy";

	/** The problem member of draft-ietf-httpapi-ratelimit-headers that names the refusing limits' items. */
	static final String VIOLATED_POLICIES = "violated-policies";

	/** The problem member naming the client's plan, for a policy with plans (or {@code override}). */
	static final String PLAN = "plan";

	private static final URI QUOTA_EXCEEDED_TYPE = URI.create(QUOTA_EXCEEDED);

	private static final URI TEMPORARY_REDUCED_CAPACITY_TYPE = URI.create(TEMPORARY_REDUCED_CAPACITY);

	private RateLimitProblems() {
	}

	/**
	 * The problem body of a request a limit refused.
	 * @param outcome the refusal
	 * @param instance the request's URI, or {@code null} outside a request
	 * @return the 429 problem
	 */
	static ProblemDetail quotaExceeded(RateLimitOutcome outcome, @Nullable URI instance) {
		Decision decision = outcome.decision();
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.TOO_MANY_REQUESTS,
				quotaExceededDetail(outcome));
		problem.setType(QUOTA_EXCEEDED_TYPE);
		problem.setTitle("Too Many Requests");
		problem.setInstance(instance);
		setPolicy(problem, outcome.plan());
		problem.setProperty(VIOLATED_POLICIES, PolicyItems.of(outcome.plan().policy()).namesOf(decision.violated()));
		return problem;
	}

	/**
	 * The problem body of a request refused because a fail-closed policy could not reach its backend.
	 * @param outcome the refusal
	 * @param instance the request's URI, or {@code null} outside a request
	 * @return the 503 problem
	 */
	static ProblemDetail unavailable(RateLimitOutcome outcome, @Nullable URI instance) {
		PolicyPlan plan = outcome.plan();
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE, "Rate limit policy '"
				+ plan.name() + "' cannot be checked right now and refuses requests until it can.");
		problem.setType(TEMPORARY_REDUCED_CAPACITY_TYPE);
		problem.setTitle("Service Unavailable");
		problem.setInstance(instance);
		setPolicy(problem, plan);
		problem.setProperty(VIOLATED_POLICIES, PolicyItems.of(plan.policy()).names());
		return problem;
	}

	private static void setPolicy(ProblemDetail problem, PolicyPlan plan) {
		problem.setProperty(POLICY, plan.name());
		if (plan.plan() != null) {
			problem.setProperty(PLAN, plan.plan());
		}
	}

	/**
	 * Sets the {@code Retry-After} of a refusal: the seconds until the request could succeed, rounded up, at least 1;
	 * none when it can never succeed, since no wait would help.
	 * @param decision the refusal
	 * @param headers the refusal's headers
	 */
	static void retryAfter(Decision decision, HttpHeaders headers) {
		if (decision.satisfiable()) {
			headers.set(HttpHeaders.RETRY_AFTER, Long.toString(decision.retryAfterSeconds()));
		}
	}

	private static String quotaExceededDetail(RateLimitOutcome outcome) {
		String policy = outcome.policy().name();
		Decision decision = outcome.decision();
		Limit limit = decision.limit();
		if (!decision.satisfiable()) {
			return "The request costs " + outcome.permits() + " permits, more than rate limit policy '" + policy
					+ "' ever allows (" + limit + ": at most " + limit.capacity() + " per " + limit.periodText()
					+ "); retrying will not help.";
		}
		return "Rate limit policy '" + policy + "' (" + limit + ") exceeded; retry in " + wait(decision) + ".";
	}

	/**
	 * The wait a refusal's detail names: under a second in milliseconds, else in seconds, rounded up either way (so a
	 * wait of 150 ms is not told as the {@code Retry-After} second it rounds up to).
	 */
	private static String wait(Decision decision) {
		Duration wait = decision.retryAfter();
		if (wait.getSeconds() == 0) {
			long millis = Math.max(1, (wait.getNano() + 999_999) / 1_000_000);
			if (millis < 1000) {
				return millis + " ms";
			}
		}
		return decision.retryAfterSeconds() + " s";
	}

}
