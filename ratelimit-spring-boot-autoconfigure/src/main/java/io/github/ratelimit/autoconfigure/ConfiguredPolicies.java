package io.github.ratelimit.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

import io.github.ratelimit.autoconfigure.RateLimitProperties.LimitProperties;
import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.core.Limit;
import io.github.ratelimit.core.Policy;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.core.RateLimiterBackend;
import io.github.ratelimit.core.lease.LeaseSettings;
import io.github.ratelimit.spring.FailureMode;
import io.github.ratelimit.spring.IpKeys;
import io.github.ratelimit.spring.KeyResolver;
import io.github.ratelimit.spring.PlanResolver;
import io.github.ratelimit.spring.PolicyDefinition;
import io.github.ratelimit.spring.PolicyLeases;
import io.github.ratelimit.spring.PolicyPlan;
import io.github.ratelimit.spring.RequestKeyResolvers;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.http.HttpMethod;
import org.springframework.util.StringUtils;
import org.springframework.web.util.pattern.PathPattern;
import org.springframework.web.util.pattern.PathPatternParser;
import org.springframework.web.util.pattern.PatternParseException;

/**
 * Turns {@code ratelimit.policies.*} into policy definitions, refusing invalid values with an exception that names
 * the property and the fix.
 */
final class ConfiguredPolicies {

	private static final Log logger = LogFactory.getLog(ConfiguredPolicies.class);

	private static final Set<String> HTTP_METHODS = Set.of("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS",
			"TRACE");

	private final RateLimitProperties properties;

	private final RateLimiterBackend backend;

	private final BeanFactory beanFactory;

	private final IpKeys ipKeys;

	private final PolicyLeases leases;

	ConfiguredPolicies(RateLimitProperties properties, RateLimiterBackend backend, BeanFactory beanFactory,
			IpKeys ipKeys, PolicyLeases leases) {
		this.properties = properties;
		this.backend = backend;
		this.beanFactory = beanFactory;
		this.ipKeys = ipKeys;
		this.leases = leases;
	}

	List<PolicyDefinition> definitions() {
		return definitions(this.properties.getPolicies());
	}

	/**
	 * The definitions of other policy settings with this instance's global ones (default algorithm and failure mode,
	 * fallback instances), as a configuration refresh builds them.
	 * @param policies the policies' settings by name
	 * @return the definitions, in order
	 * @throws InvalidRateLimitConfigurationException naming the first invalid property
	 */
	List<PolicyDefinition> definitions(Map<String, RateLimitProperties.PolicyProperties> policies) {
		List<PolicyDefinition> definitions = new ArrayList<>();
		for (Map.Entry<String, RateLimitProperties.PolicyProperties> entry : policies.entrySet()) {
			definitions.add(definition(entry.getKey(), entry.getValue()));
		}
		return definitions;
	}

	private PolicyDefinition definition(String name, RateLimitProperties.PolicyProperties settings) {
		PolicyDefinition definition = mapped(name, settings);
		Boolean hashKeys = settings.getHashKeys();
		definition = (hashKeys != null) ? definition.withHashedKeys(hashKeys) : definition;
		Duration wait = settings.getMaxWait();
		if (wait.isZero()) {
			return definition;
		}
		String property = "ratelimit.policies." + name + ".max-wait";
		if (wait.isNegative()) {
			throw new InvalidRateLimitConfigurationException(property, "a wait cannot be negative (" + wait + ")",
					"give a wait of 0 (refuse at once) or more, such as 2s", null);
		}
		if (definition.shadow()) {
			throw new InvalidRateLimitConfigurationException(property,
					"a shadow policy never refuses, so it never waits", "remove the wait, or set "
							+ "ratelimit.policies." + name + ".shadow=false",
					null);
		}
		return definition.withMaxWait(wait);
	}

	private PolicyDefinition mapped(String name, RateLimitProperties.PolicyProperties settings) {
		String prefix = "ratelimit.policies." + name + ".";
		Algorithm algorithm = (settings.getAlgorithm() != null) ? settings.getAlgorithm()
				: this.properties.getAlgorithm();
		KeyResolver keyResolver = check(prefix + "key",
				() -> RequestKeyResolvers.of(settings.getKey(), this.beanFactory, this.ipKeys),
				"use ip, global, principal, header:<Name>, param:<name>, expr:<SpEL> or bean:<KeyResolver bean>");
		FailureMode failureMode = (settings.getFailureMode() != null) ? settings.getFailureMode()
				: this.properties.getFailureMode();
		check("ratelimit.policies." + name, () -> new Policy(name, algorithm, List.of(Limit.parse("1/1s"))),
				"use a policy name without '{' or '}'");
		Template template = new Template(name, settings.getKey(), keyResolver,
				patterns(prefix + "paths", settings.getPaths()),
				patterns(prefix + "exclude-paths", settings.getExcludePaths()),
				methods(prefix + "methods", settings.getMethods()), failureMode, settings.isShadow());
		if (settings.getPlans().isEmpty()) {
			checkNoPlanSettings(prefix, settings);
			PolicyPlan plan = plan(template, prefix, null, algorithm, settings.getLimits(), settings.getCost(),
					prefix + "cost", settings.getLease());
			return PolicyDefinition.of(plan.policy(), plan.limiter(), template.keyStrategy(), template.keyResolver(),
					template.paths(), template.excludePaths(), template.methods(), plan.cost(), template.failureMode(),
					template.shadow());
		}
		return withPlans(template, prefix, settings, algorithm);
	}

	/**
	 * What every plan of a policy shares: which requests it applies to, how their client is keyed, what happens when
	 * the backend cannot answer.
	 */
	private record Template(String name, String keyStrategy, KeyResolver keyResolver, List<String> paths,
			List<String> excludePaths, Set<String> methods, FailureMode failureMode, boolean shadow) {
	}

	/**
	 * The definition of a policy with plans: every plan, the default one, and the strategy that picks a client's.
	 */
	private PolicyDefinition withPlans(Template template, String prefix, RateLimitProperties.PolicyProperties settings,
			Algorithm algorithm) {
		if (!settings.getLimits().isEmpty()) {
			throw new InvalidRateLimitConfigurationException(prefix + "limits",
					"a policy with plans takes its limits from its plans, and has limits of its own too",
					"move the limits into a plan (the default plan is the one of clients the plan strategy gives "
							+ "none), or remove " + prefix + "plans",
					null);
		}
		String strategy = settings.getPlan();
		if (strategy == null || !StringUtils.hasText(strategy)) {
			throw new InvalidRateLimitConfigurationException(prefix + "plan",
					"the policy has plans but no strategy that picks a client's plan",
					"set " + prefix + "plan to bean:<PlanResolver bean> or expr:<SpEL>, such as "
							+ "\"expr:#key.startsWith('pro-') ? 'pro' : 'free'\"",
					null);
		}
		PlanResolver resolver = check(prefix + "plan", () -> PolicyDefinition.planResolverOf(strategy, this.beanFactory),
				"use bean:<PlanResolver bean> or expr:<SpEL over the request, with the client's key as #key>");
		Map<String, PolicyPlan> plans = new LinkedHashMap<>();
		settings.getPlans().forEach((plan, planSettings) -> {
			String planPrefix = prefix + "plans." + plan + ".";
			if (!Policy.isPlanName(plan) || PolicyPlan.OVERRIDE.equals(plan)) {
				throw new InvalidRateLimitConfigurationException(prefix + "plans." + plan,
						"'" + plan + "' is not a plan name", "name plans with letters, digits, '-' and '_' only, "
								+ "other than '" + PolicyPlan.OVERRIDE + "' (the plan of clients with an override)",
						null);
			}
			Long planCost = planSettings.getCost();
			Algorithm planAlgorithm = (planSettings.getAlgorithm() != null) ? planSettings.getAlgorithm() : algorithm;
			plans.put(plan, plan(template, planPrefix, plan, planAlgorithm, planSettings.getLimits(),
					(planCost != null) ? planCost : settings.getCost(),
					(planCost != null) ? planPrefix + "cost" : prefix + "cost", settings.getLease()));
		});
		String defaultPlan = settings.getDefaultPlan();
		if (!StringUtils.hasText(defaultPlan) || !plans.containsKey(defaultPlan)) {
			throw new InvalidRateLimitConfigurationException(prefix + "default-plan",
					(StringUtils.hasText(defaultPlan) ? "'" + defaultPlan + "' is not one of the plans "
							: "the policy has no default plan among its plans ") + plans.keySet(),
					"set " + prefix + "default-plan to the plan of clients the plan strategy names none for", null);
		}
		return PolicyDefinition.withPlans(template.name(), template.keyStrategy(), template.keyResolver(),
				template.paths(), template.excludePaths(), template.methods(), template.failureMode(), template.shadow(),
				strategy, resolver, plans, defaultPlan);
	}

	private static void checkNoPlanSettings(String prefix, RateLimitProperties.PolicyProperties settings) {
		if (settings.getPlan() != null) {
			throw new InvalidRateLimitConfigurationException(prefix + "plan",
					"the policy has a plan strategy but no plans", "declare " + prefix + "plans, or remove "
							+ prefix + "plan",
					null);
		}
		if (settings.getDefaultPlan() != null) {
			throw new InvalidRateLimitConfigurationException(prefix + "default-plan",
					"the policy has a default plan but no plans", "declare " + prefix + "plans, or remove "
							+ prefix + "default-plan",
					null);
		}
	}

	/**
	 * The plan of a policy without plans (its own limits), or one plan of a policy: its limits, algorithm and cost,
	 * checked, and its limiter.
	 * @param prefix the properties of the limits, such as {@code ratelimit.policies.orders.plans.pro.}
	 * @param costProperty the property the cost was given by (the policy's, for a plan without a cost of its own)
	 */
	private PolicyPlan plan(Template template, String prefix, @Nullable String plan,
			Algorithm algorithm, List<LimitProperties> limitSettings, long cost, String costProperty,
			RateLimitProperties.LeaseProperties lease) {
		List<Limit> limits = limits(prefix + "limits", limitSettings);
		String name = template.name();
		Policy policy = check(prefix.substring(0, prefix.length() - 1), () -> new Policy(name, algorithm, limits, plan),
				"use a policy name without '{' or '}', and limits within the bounds of the policy's algorithm "
						+ "(see the message)");
		if (cost < 1) {
			throw new InvalidRateLimitConfigurationException(costProperty,
					"the cost must be at least 1, was " + cost, "set a cost of 1 or more permits", null);
		}
		if (cost > policy.smallestCapacity()) {
			throw new InvalidRateLimitConfigurationException(costProperty,
					"a cost of " + cost + " exceeds the capacity " + policy.smallestCapacity()
							+ ", so every request would be refused",
					"lower the cost or raise the capacity", null);
		}
		if (template.failureMode() == FailureMode.LOCAL) {
			checkFallbackCapacity(prefix, policy, cost);
		}
		return new PolicyPlan(policy, limiter(policy, cost, lease), cost);
	}

	/**
	 * The limiter of a policy (or a plan): the backend's, leased when the policy's lease is enabled.
	 */
	private RateLimiter limiter(Policy policy, long cost, RateLimitProperties.LeaseProperties lease) {
		RateLimiter limiter = this.backend.create(policy);
		if (!lease.isEnabled()) {
			return limiter;
		}
		return this.leases.lease(limiter, leaseSettings(policy, cost, lease));
	}

	/**
	 * Checks a policy's lease settings against one of its plans (or the policy itself, without plans).
	 */
	static LeaseSettings leaseSettings(Policy policy, long cost, RateLimitProperties.LeaseProperties lease) {
		String prefix = "ratelimit.policies." + policy.name() + ".lease.";
		if (!policy.algorithm().leasable()) {
			throw new InvalidRateLimitConfigurationException(prefix + "enabled",
					"the " + policy.algorithm().id() + " algorithm" + ((policy.plan() != null)
							? " of plan '" + policy.plan() + "'" : "")
							+ " cannot be leased: it promises every rolling period, and a permit taken in one period "
							+ "and used in the next would be counted in neither",
					"use token-bucket, gcra or fixed-window for a leased policy, or remove " + prefix + "enabled",
					null);
		}
		long capacity = policy.smallestCapacity();
		Long configured = lease.getBatch();
		long batch = (configured != null) ? configured : Math.max(cost, Math.max(1, capacity / 100));
		if (batch < cost || batch > capacity) {
			throw new InvalidRateLimitConfigurationException(prefix + "batch",
					"a batch of " + batch + " is " + ((batch < cost) ? "below the cost " + cost
							+ ", so no lease could pay for a request" : "above the smallest capacity " + capacity
							+ ((policy.plan() != null) ? " of plan '" + policy.plan() + "'" : "")),
					"set a batch between " + cost + " and " + capacity + " (or leave it out: 1% of the capacity)",
					null);
		}
		Duration maxAge = lease.getMaxAge();
		if (maxAge == null || maxAge.isZero() || maxAge.isNegative()) {
			throw new InvalidRateLimitConfigurationException(prefix + "max-age",
					"the maximum age of a lease must be positive, was " + maxAge, "set a duration such as 1s", null);
		}
		return new LeaseSettings(batch, lease.isAdaptive(), maxAge);
	}

	/**
	 * The local failure mode divides each limit by the number of instances: a share below what a request costs (at
	 * least one permit) would refuse every request while the backend is down. The cost is already checked to be
	 * between 1 and the smallest capacity.
	 */
	private void checkFallbackCapacity(String prefix, Policy policy, long cost) {
		int instances = RateLimitAutoConfiguration.fallbackInstances(this.properties);
		for (int i = 0; i < policy.limits().size(); i++) {
			Limit limit = policy.limits().get(i);
			long share = limit.capacity() / instances;
			if (share >= cost) {
				try {
					share = limit.share(instances).capacity();
				}
				catch (IllegalArgumentException ex) {
					throw new InvalidRateLimitConfigurationException("ratelimit.fallback.instances", ex.getMessage(),
							"use a rounder capacity in " + prefix + "limits[" + i + "] or another number of instances",
							ex);
				}
			}
			if (share < cost) {
				throw new InvalidRateLimitConfigurationException("ratelimit.fallback.instances",
						"dividing " + prefix + "limits[" + i + "] (" + limit + ") by " + instances
								+ " instances leaves " + share + " permits per instance while the backend is down, "
								+ "fewer than " + prefix + "cost (" + cost + ")",
						"lower ratelimit.fallback.instances to at most " + (limit.capacity() / cost)
								+ ", or raise " + prefix + "limits[" + i + "] to at least " + (instances * cost)
								+ " or lower " + prefix + "cost",
						null);
			}
		}
	}

	private static List<Limit> limits(String property, List<LimitProperties> limits) {
		if (limits.isEmpty()) {
			throw new InvalidRateLimitConfigurationException(property, "the policy has no limits",
					"give at least one limit, such as \"100/1m\"", null);
		}
		List<Limit> parsed = new ArrayList<>();
		for (int i = 0; i < limits.size(); i++) {
			LimitProperties limit = limits.get(i);
			parsed.add(check(property + "[" + i + "]", () -> limit(limit),
					"write limits as \"<capacity>/<period>\", such as \"100/1m\", \"5/10s\" or \"50000/1d\" "
							+ "(units ms, s, m, h, d), or as {capacity: 100, period: 1m}"));
		}
		return parsed;
	}

	private static Limit limit(LimitProperties limit) {
		if (limit.text() != null) {
			return Limit.parse(limit.text());
		}
		Long capacity = limit.getCapacity();
		Duration period = limit.getPeriod();
		if (capacity == null || period == null) {
			throw new IllegalArgumentException("a limit needs both a capacity and a period");
		}
		return Limit.of(capacity, period);
	}

	/**
	 * The path patterns of a policy, each checked to parse as the web filters will parse it. A pattern without a
	 * leading {@code /} is given one, as Spring MVC and WebFlux do with a {@code @RequestMapping} path (request paths
	 * always start with one, so it would match nothing), with a warning naming the property; an empty one is refused.
	 */
	private static List<String> patterns(String property, List<String> patterns) {
		List<String> checked = new ArrayList<>(patterns.size());
		for (int i = 0; i < patterns.size(); i++) {
			String name = property + "[" + i + "]";
			String written = patterns.get(i);
			if (!StringUtils.hasText(written)) {
				throw new InvalidRateLimitConfigurationException(name, "the path pattern is empty, so it matches no "
						+ "request", "give a pattern such as /api/** or remove the entry", null);
			}
			String pattern = PathPatternParser.defaultInstance.initFullPathPattern(written);
			if (!pattern.equals(written)) {
				logger.warn(name + " is '" + written + "', which has no leading '/' and would match no request: "
						+ "applying it as '" + pattern + "', as Spring MVC does with such a @RequestMapping path. "
						+ "Write '" + pattern + "' to silence this warning");
			}
			check(name, () -> parse(pattern), "use Spring PathPattern syntax, such as /api/** or /orders/{id}");
			checked.add(pattern);
		}
		return List.copyOf(checked);
	}

	private static PathPattern parse(String pattern) {
		try {
			return PathPatternParser.defaultInstance.parse(pattern);
		}
		catch (PatternParseException ex) {
			throw new IllegalArgumentException(ex.toDetailedString(), ex);
		}
	}

	private static Set<String> methods(String property, List<String> methods) {
		Set<String> parsed = new LinkedHashSet<>();
		for (int i = 0; i < methods.size(); i++) {
			String method = methods.get(i).trim().toUpperCase(Locale.ROOT);
			if (!HTTP_METHODS.contains(method)) {
				throw new InvalidRateLimitConfigurationException(property + "[" + i + "]",
						"'" + methods.get(i) + "' is not an HTTP method", "use " + String.join(", ", HTTP_METHODS),
						null);
			}
			parsed.add(HttpMethod.valueOf(method).name());
		}
		return Set.copyOf(parsed);
	}

	/**
	 * Runs a step of the mapping, turning its {@link IllegalArgumentException} into an exception that names the
	 * property.
	 */
	static <T> T check(String property, Supplier<T> step, String action) {
		try {
			return step.get();
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidRateLimitConfigurationException(property, ex.getMessage(), action, ex);
		}
	}

}
