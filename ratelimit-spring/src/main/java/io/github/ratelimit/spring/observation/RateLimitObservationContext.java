package io.github.ratelimit.spring.observation;

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

	private @Nullable String outcome;

	/**
	 * Creates the context of a decision about to be made.
	 * @param policy the policy's name
	 * @param plan the plan requested, as metrics tag it ({@code none} for a policy without plans)
	 * @param backend the name of the backend that decides ({@code redis} or {@code in-memory})
	 */
	public RateLimitObservationContext(String policy, String plan, String backend) {
		this.policy = policy;
		this.plan = plan;
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
	 * {@code none} for a policy without plans, as metrics tag it.
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
	 * How the request was decided, as the {@code outcome} tag of the {@code ratelimit.requests} metric names it
	 * ({@code allowed}, {@code denied}, ...), or {@code null} while it is being decided (or when deciding failed with
	 * an error).
	 * @return the outcome's tag
	 */
	public @Nullable String getOutcome() {
		return this.outcome;
	}

	/**
	 * Records what the decision came to.
	 * @param outcome the outcome's tag
	 * @param plan the plan the client was decided under, as metrics tag it
	 */
	public void setOutcome(String outcome, String plan) {
		this.outcome = outcome;
		this.plan = plan;
	}

}
