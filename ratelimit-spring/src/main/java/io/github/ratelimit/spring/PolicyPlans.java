package io.github.ratelimit.spring;

import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The plans of a policy: each a {@link PolicyPlan} of its own limits (and algorithm and cost), the default one, and
 * the {@link PlanResolver} that picks one per client. A resolver that fails, or names a plan the policy does not have,
 * gives the default plan (logged once per policy), so a bug in it never leaves a client unlimited. A policy without
 * plans has one, its own limits, and no resolver.
 */
final class PolicyPlans {

	private static final FirstWarning warnings = new FirstWarning(LogFactory.getLog(PolicyPlans.class));

	private final String strategy;

	private final @Nullable PlanResolver resolver;

	private final Map<String, PolicyPlan> plans;

	private final PolicyPlan defaultPlan;

	/** The answer of a policy without plans, shared; a minimal stage, so that no caller can complete it otherwise. */
	private final CompletionStage<PolicyPlan> decided;

	private PolicyPlans(String strategy, @Nullable PlanResolver resolver, Map<String, PolicyPlan> plans,
			PolicyPlan defaultPlan) {
		this.strategy = strategy;
		this.resolver = resolver;
		this.plans = plans;
		this.defaultPlan = defaultPlan;
		this.decided = CompletableFuture.completedStage(defaultPlan);
	}

	/**
	 * The one plan of a policy without plans: its own limits.
	 * @param plan the policy's limits
	 * @return the plans
	 */
	static PolicyPlans of(PolicyPlan plan) {
		return new PolicyPlans("", null, Map.of(), plan);
	}

	/**
	 * The plans of a policy with plans.
	 * @param strategy the plan strategy as configured, such as {@code bean:orderPlans}
	 * @param resolver picks a client's plan: the strategy's resolver
	 * @param plans every plan by name, in the order they are listed in
	 * @param defaultPlan the name of the plan of clients the resolver gives none
	 * @return the plans
	 * @throws IllegalArgumentException when there are none, or the default plan is not one of them
	 */
	static PolicyPlans of(String strategy, PlanResolver resolver, Map<String, PolicyPlan> plans, String defaultPlan) {
		PolicyPlan fallback = plans.get(defaultPlan);
		if (fallback == null) {
			throw new IllegalArgumentException("the default plan '" + defaultPlan + "' is not one of the plans "
					+ plans.keySet());
		}
		return new PolicyPlans(strategy, resolver, Collections.unmodifiableMap(new LinkedHashMap<>(plans)), fallback);
	}

	/**
	 * Whether this is the one plan of a policy without plans.
	 * @return whether it is
	 */
	boolean isSingle() {
		return this.resolver == null;
	}

	String strategy() {
		return this.strategy;
	}

	Collection<PolicyPlan> all() {
		return isSingle() ? List.of(this.defaultPlan) : this.plans.values();
	}

	PolicyPlan defaultPlan() {
		return this.defaultPlan;
	}

	boolean requiresAuthentication() {
		return this.resolver != null && this.resolver.requiresAuthentication();
	}

	/**
	 * The plan of a client.
	 * @param policy the policy's name, for the log
	 * @param key the client's key
	 * @param request the request, or {@code null} outside one
	 * @return the plan when known
	 */
	CompletionStage<PolicyPlan> planOfAsync(String policy, String key, @Nullable RateLimitRequest request) {
		PlanResolver resolver = this.resolver;
		if (resolver == null) {
			return this.decided;
		}
		try {
			return resolver.resolvePlanAsync(key, request).handle((name, error) -> (error != null)
					? failed(policy, error) : named(policy, name));
		}
		catch (RuntimeException ex) {
			return CompletableFuture.completedFuture(failed(policy, ex));
		}
	}

	private PolicyPlan named(String policy, @Nullable String name) {
		if (name == null) {
			return this.defaultPlan;
		}
		PolicyPlan plan = this.plans.get(name);
		if (plan == null) {
			warnings.log(policy + ":unknown", "The plan resolver of rate limit policy '" + policy
					+ "' named a plan it does not have, '" + name + "'; the default plan '"
					+ this.defaultPlan.plan() + "' applies");
			return this.defaultPlan;
		}
		return plan;
	}

	private PolicyPlan failed(String policy, Throwable error) {
		warnings.error(policy + ":" + error.getClass().getName(), "The plan resolver of rate limit policy '" + policy
				+ "' failed; the default plan '" + this.defaultPlan.plan() + "' applies: " + error, error);
		return this.defaultPlan;
	}

	@Override
	public String toString() {
		return all().toString();
	}

}
