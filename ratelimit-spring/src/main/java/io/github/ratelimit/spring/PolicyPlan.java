package io.github.ratelimit.spring;

import java.util.Map;

import io.github.ratelimit.core.Limit;
import io.github.ratelimit.core.Policy;
import io.github.ratelimit.core.RateLimiter;
import org.jspecify.annotations.Nullable;

/**
 * What a decision runs on: one plan of a policy (for a policy without plans, the policy's own limits), its limiter and
 * what a request costs under it. A client's plan is picked by its policy ({@link PolicyDefinition#planForAsync});
 * an operator's override of a client is a plan of its own, {@code override}. Which requests a policy applies to, how
 * their client is keyed and what happens when the backend cannot answer are the policy's
 * ({@link PolicyDefinition}).
 *
 * @param policy the limits and algorithm the limiter decides, under the policy's name and the plan's
 * ({@link Policy#plan()}, {@code null} for a policy without plans)
 * @param limiter the plan's limiter
 * @param cost the permits each request costs under the plan
 */
public record PolicyPlan(Policy policy, RateLimiter limiter, long cost) {

	/**
	 * The plan name of a client's override: an operator's limits for one client, decided as a plan of their own
	 * ({@code /actuator/ratelimits/{policy}/{key}/override}); no configured plan may take it.
	 */
	public static final String OVERRIDE = "override";

	/** The plan a policy without plans is tagged with in metrics and observations. */
	public static final String NO_PLAN_TAG = "none";

	/**
	 * The policy's name.
	 * @return the name
	 */
	public String name() {
		return this.policy.name();
	}

	/**
	 * The plan's name.
	 * @return the name, or {@code null} for a policy without plans
	 */
	public @Nullable String plan() {
		return this.policy.plan();
	}

	/**
	 * The plan as metrics and observations tag it: its name, or {@value #NO_PLAN_TAG} for a policy without plans.
	 * @return the tag's value
	 */
	public String planTag() {
		String plan = plan();
		return (plan != null) ? plan : NO_PLAN_TAG;
	}

	/**
	 * What this plan's state and refusals are remembered under in this instance (the deny cache, the local fallback):
	 * the policy's name, and the plan's after a '{', which no policy name holds.
	 * @return the scope
	 */
	public String scope() {
		String plan = plan();
		return (plan != null) ? name() + "{" + plan : name();
	}

	/**
	 * The names by which responses refer to the plan's limits: the items of {@code RateLimit-Policy} and
	 * {@code RateLimit}, and the {@code violated-policies} of a problem body; unique within the plan.
	 * @return each limit's item name, in the plan's order of limits
	 */
	public Map<Limit, String> itemNames() {
		return PolicyItems.of(this.policy).byLimit();
	}

}
