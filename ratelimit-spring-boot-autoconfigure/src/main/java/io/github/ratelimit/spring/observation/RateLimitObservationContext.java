package io.github.ratelimit.spring.observation;

import io.github.ratelimit.spring.PolicyDefinition;
import io.github.ratelimit.spring.RateLimitOutcome;
import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

/**
 * The context of one rate limit decision's observation: the policy, its plan, the backend and, once decided, the
 * outcome. It never holds the client's key.
 */
public class RateLimitObservationContext extends Observation.Context {

	private final String policy;

	private final String backend;

	private String plan;

	private RateLimitOutcome.@Nullable Kind outcome;

	/**
	 * Creates the context of a decision about to be made.
	 * @param policy the policy (or the client's plan of it) requested
	 * @param backend the name of the backend that decides ({@code redis} or {@code in-memory})
	 */
	public RateLimitObservationContext(PolicyDefinition policy, String backend) {
		this.policy = policy.name();
		this.plan = policy.planTag();
		this.backend = backend;
	}

	/**
	 * The policy's name.
	 * @return the name
	 */
	public String getPolicy() {
		return this.policy;
	}

	/**
	 * The plan the client was decided under (an override's plan once one applied), or
	 * {@value PolicyDefinition#NO_PLAN_TAG} for a policy without plans, as metrics tag it.
	 * @return the plan
	 */
	public String getPlan() {
		return this.plan;
	}

	/**
	 * The name of the backend that decides: {@code redis} or {@code in-memory}.
	 * @return the backend's name
	 */
	public String getBackend() {
		return this.backend;
	}

	/**
	 * How the request was decided, or {@code null} while it is being decided (or when deciding failed with an error).
	 * @return the outcome's kind
	 */
	public RateLimitOutcome.@Nullable Kind getOutcome() {
		return this.outcome;
	}

	/**
	 * Records what the decision came to.
	 * @param outcome the outcome
	 */
	public void setOutcome(RateLimitOutcome outcome) {
		this.outcome = outcome.kind();
		this.plan = outcome.policy().planTag();
	}

}
