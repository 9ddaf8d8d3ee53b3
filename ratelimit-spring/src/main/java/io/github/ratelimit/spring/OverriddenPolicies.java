package io.github.ratelimit.spring;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.github.ratelimit.core.Policy;
import io.github.ratelimit.core.RateLimiterBackend;
import io.github.ratelimit.core.override.ClientOverride;
import io.github.ratelimit.core.override.ClientOverrides;
import org.apache.commons.logging.LogFactory;

/**
 * Applies operators' per-client overrides: a client with one is decided by a definition of the override's limits
 * (plan {@value #PLAN}, the algorithm and cost of the client's plan), whose state is its own. Asking costs a lookup
 * in this instance's copy of the overrides, never a backend call.
 */
public final class OverriddenPolicies {

	/** The plan name of a definition that decides a client with an override. */
	public static final String PLAN = "override";

	private static final FirstWarning invalid = new FirstWarning(LogFactory.getLog(OverriddenPolicies.class));

	private final ClientOverrides overrides;

	private final RateLimiterBackend backend;

	private final Cache<Policy, PolicyDefinition> definitions;

	/**
	 * The definition each override in this instance's copy was last applied with, by the override's identity (the
	 * store keeps one instance per override until it changes), so a decision of a client with an override builds
	 * nothing; entries go with the overrides the store drops.
	 */
	private final Cache<ClientOverride, Applied> applied;

	/**
	 * Creates the applier.
	 * @param overrides the overrides
	 * @param backend the backend of the overrides' limiters
	 * @param maximum the most overrides' definitions kept (at least the most overrides)
	 */
	public OverriddenPolicies(ClientOverrides overrides, RateLimiterBackend backend, long maximum) {
		this.overrides = overrides;
		this.backend = backend;
		this.definitions = Caffeine.newBuilder().maximumSize(maximum).build();
		this.applied = Caffeine.newBuilder().weakKeys().maximumSize(maximum).build();
	}

	/**
	 * The overrides applied.
	 * @return the overrides
	 */
	public ClientOverrides overrides() {
		return this.overrides;
	}

	/**
	 * The definition that decides a client: the override's when it has one, else the one given.
	 * @param policy the client's plan (or policy)
	 * @param key the client's key
	 * @return the definition to decide with
	 */
	public PolicyDefinition apply(PolicyDefinition policy, String key) {
		ClientOverride override = this.overrides.find(policy.name(), key);
		if (override == null) {
			return policy;
		}
		Applied last = this.applied.getIfPresent(override);
		if (last != null && last.plan() == policy) {
			return last.definition();
		}
		PolicyDefinition definition = definition(policy, override);
		if (definition != policy) {
			this.applied.put(override, new Applied(policy, definition));
		}
		return definition;
	}

	private PolicyDefinition definition(PolicyDefinition policy, ClientOverride override) {
		Policy overridden;
		try {
			overridden = policy.policy().withPlan(PLAN, policy.policy().algorithm(), override.limits());
		}
		catch (IllegalArgumentException ex) {
			invalid.log(policy.scope(), "The override of a client of rate limit policy '" + policy.name()
					+ "' does not suit its plan's algorithm and is not applied: " + ex.getMessage());
			return policy;
		}
		return this.definitions.get(overridden, (limits) -> new PolicyDefinition(limits, this.backend.create(limits),
				policy.keyStrategy(), policy.keyResolver(), policy.paths(), policy.excludePaths(), policy.methods(),
				policy.cost(), policy.failureMode(), policy.shadow()));
	}

	/**
	 * The definition an override was applied with, and the plan it was applied to.
	 */
	private record Applied(PolicyDefinition plan, PolicyDefinition definition) {
	}

	/**
	 * The scope under which a policy's overridden clients are remembered (see {@link PolicyDefinition#scope()}).
	 * @param policy the policy's name
	 * @return the scope
	 */
	public static String scope(String policy) {
		return policy + "{" + PLAN;
	}

}
