package io.github.ratelimit.spring;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.github.ratelimit.core.Policy;
import io.github.ratelimit.core.RateLimiterBackend;
import io.github.ratelimit.core.override.ClientOverride;
import io.github.ratelimit.core.override.ClientOverrides;
import org.apache.commons.logging.LogFactory;

/**
 * Applies operators' per-client overrides: a client with one is decided by a plan of the override's limits
 * (plan {@value #PLAN}, the algorithm and cost of the client's plan), whose state is its own. Asking costs a lookup
 * in this instance's copy of the overrides, never a backend call.
 */
final class OverriddenPolicies {

	/** The plan name of the plan that decides a client with an override. */
	static final String PLAN = PolicyPlan.OVERRIDE;

	private static final FirstWarning invalid = new FirstWarning(LogFactory.getLog(OverriddenPolicies.class));

	private final ClientOverrides overrides;

	private final RateLimiterBackend backend;

	private final Cache<Policy, PolicyPlan> plans;

	/**
	 * The plan each override in this instance's copy last made, by the override's identity (the
	 * store keeps one instance per override until it changes), so a decision of a client with an override builds
	 * nothing; entries go with the overrides the store drops.
	 */
	private final Cache<ClientOverride, Applied> applied;

	/**
	 * Creates the applier.
	 * @param overrides the overrides
	 * @param backend the backend of the overrides' limiters
	 * @param maximum the most overrides' plans kept (at least the most overrides)
	 */
	OverriddenPolicies(ClientOverrides overrides, RateLimiterBackend backend, long maximum) {
		this.overrides = overrides;
		this.backend = backend;
		this.plans = Caffeine.newBuilder().maximumSize(maximum).build();
		this.applied = Caffeine.newBuilder().weakKeys().maximumSize(maximum).build();
	}

	/**
	 * The overrides applied.
	 * @return the overrides
	 */
	ClientOverrides overrides() {
		return this.overrides;
	}

	/**
	 * The plan that decides a client: its override, a plan of its own limits, when it has one, else the one given.
	 * @param plan the client's plan
	 * @param key the client's key
	 * @return the plan to decide with
	 */
	PolicyPlan apply(PolicyPlan plan, String key) {
		ClientOverride override = this.overrides.find(plan.name(), key);
		if (override == null) {
			return plan;
		}
		Applied last = this.applied.getIfPresent(override);
		if (last != null && last.plan() == plan) {
			return last.overridden();
		}
		PolicyPlan overridden = overridden(plan, override);
		if (overridden != plan) {
			this.applied.put(override, new Applied(plan, overridden));
		}
		return overridden;
	}

	private PolicyPlan overridden(PolicyPlan plan, ClientOverride override) {
		Policy overridden;
		try {
			overridden = plan.policy().withPlan(PLAN, plan.policy().algorithm(), override.limits());
		}
		catch (IllegalArgumentException ex) {
			invalid.log(plan.scope(), "The override of a client of rate limit policy '" + plan.name()
					+ "' does not suit its plan's algorithm and is not applied: " + ex.getMessage());
			return plan;
		}
		return this.plans.get(overridden, (limits) -> new PolicyPlan(limits, this.backend.create(limits), plan.cost()));
	}

	/**
	 * The plan an override was applied to, and the plan it made.
	 */
	private record Applied(PolicyPlan plan, PolicyPlan overridden) {
	}

	/**
	 * The scope under which a policy's overridden clients are remembered (see {@link PolicyPlan#scope()}).
	 * @param policy the policy's name
	 * @return the scope
	 */
	static String scope(String policy) {
		return policy + "{" + PLAN;
	}

}
