package io.github.ratelimit.spring;

import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanFactory;

/**
 * The plans of a policy: each a {@link PolicyDefinition} of its own limits (and algorithm and cost), the default one,
 * and the {@link PlanResolver} that picks one per client. A resolver that fails, or names a plan the policy does not
 * have, gives the default plan (logged once per policy), so a bug in it never leaves a client unlimited.
 */
public final class PolicyPlans {

	private static final PolicyPlans NONE = new PolicyPlans("", null, Map.of(), null);

	private static final FirstWarning warnings = new FirstWarning(LogFactory.getLog(PolicyPlans.class));

	private final String strategy;

	private final @Nullable PlanResolver resolver;

	private final Map<String, PolicyDefinition> plans;

	private final @Nullable PolicyDefinition defaultPlan;

	private PolicyPlans(String strategy, @Nullable PlanResolver resolver, Map<String, PolicyDefinition> plans,
			@Nullable PolicyDefinition defaultPlan) {
		this.strategy = strategy;
		this.resolver = resolver;
		this.plans = plans;
		this.defaultPlan = defaultPlan;
	}

	/**
	 * No plans: every client is limited by the policy's own limits.
	 * @return the empty plans
	 */
	public static PolicyPlans none() {
		return NONE;
	}

	/**
	 * The resolver of a configured plan strategy: {@code bean:<PlanResolver bean>}, or {@code expr:<SpEL>} evaluated
	 * like an {@code expr:} key strategy (over the request as root and {@code #request}, read-only, instance methods
	 * allowed) with the client's key as {@code #key}; outside a web request the root and {@code #request} are
	 * {@code null}. An expression that fails on a request gives the default plan (the first failure logged as a
	 * warning).
	 * @param strategy the strategy, such as {@code bean:orderPlans}
	 * @param beanFactory where {@code bean:} resolvers are looked up
	 * @return the resolver
	 * @throws IllegalArgumentException when the strategy is unknown, an unparsable expression, or names no
	 * {@link PlanResolver} bean
	 */
	public static PlanResolver resolverOf(String strategy, BeanFactory beanFactory) {
		return PlanResolvers.of(strategy, beanFactory);
	}

	/**
	 * The plans of a policy.
	 * @param strategy the plan strategy as configured, such as {@code bean:orderPlans}
	 * @param resolver picks a client's plan: the strategy's resolver
	 * @param plans every plan by name, each a definition whose {@link PolicyDefinition#plan()} is its name, in the
	 * order they are listed in
	 * @param defaultPlan the name of the plan of clients the resolver gives none
	 * @return the plans
	 * @throws IllegalArgumentException when the default plan is not one of them
	 */
	public static PolicyPlans of(String strategy, PlanResolver resolver, Map<String, PolicyDefinition> plans,
			String defaultPlan) {
		PolicyDefinition fallback = plans.get(defaultPlan);
		if (fallback == null) {
			throw new IllegalArgumentException("the default plan '" + defaultPlan + "' is not one of the plans "
					+ plans.keySet());
		}
		return new PolicyPlans(strategy, resolver, Collections.unmodifiableMap(new LinkedHashMap<>(plans)), fallback);
	}

	/**
	 * Whether the policy has plans.
	 * @return whether there are any
	 */
	public boolean isEmpty() {
		return this.plans.isEmpty();
	}

	/**
	 * The plan strategy as configured.
	 * @return the strategy, such as {@code bean:orderPlans}; empty without plans
	 */
	public String strategy() {
		return this.strategy;
	}

	/**
	 * Every plan.
	 * @return the plans' definitions, in the order they were listed in
	 */
	public Collection<PolicyDefinition> all() {
		return this.plans.values();
	}

	/**
	 * The default plan.
	 * @return its definition, or {@code null} without plans
	 */
	public @Nullable PolicyDefinition defaultPlan() {
		return this.defaultPlan;
	}

	/**
	 * Whether the resolver needs the authenticated user.
	 * @return whether it does
	 */
	public boolean requiresAuthentication() {
		return this.resolver != null && this.resolver.requiresAuthentication();
	}

	/**
	 * The plan of a client, or {@code null} without plans.
	 * @param policy the policy's name, for the log
	 * @param key the client's key
	 * @param request the request, or {@code null} outside one
	 * @return the plan's definition when known
	 */
	CompletionStage<@Nullable PolicyDefinition> planOfAsync(String policy, String key,
			@Nullable RateLimitRequest request) {
		if (this.resolver == null) {
			return CompletableFuture.completedFuture(null);
		}
		try {
			return this.resolver.resolvePlanAsync(key, request).handle((name, error) -> (error != null)
					? failed(policy, error) : named(policy, name));
		}
		catch (RuntimeException ex) {
			return CompletableFuture.completedFuture(failed(policy, ex));
		}
	}

	private @Nullable PolicyDefinition named(String policy, @Nullable String name) {
		if (name == null) {
			return this.defaultPlan;
		}
		PolicyDefinition plan = this.plans.get(name);
		if (plan == null) {
			warnings.log(policy + ":unknown", "The plan resolver of rate limit policy '" + policy
					+ "' named a plan it does not have, '" + name + "'; the default plan '"
					+ this.defaultPlan.plan() + "' applies");
			return this.defaultPlan;
		}
		return plan;
	}

	private @Nullable PolicyDefinition failed(String policy, Throwable error) {
		warnings.error(policy + ":" + error.getClass().getName(), "The plan resolver of rate limit policy '" + policy
				+ "' failed; the default plan '" + this.defaultPlan.plan() + "' applies: " + error, error);
		return this.defaultPlan;
	}

}
