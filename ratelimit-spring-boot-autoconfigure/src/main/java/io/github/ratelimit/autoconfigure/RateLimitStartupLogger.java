package io.github.ratelimit.autoconfigure;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

import io.github.ratelimit.core.Limit;
import io.github.ratelimit.core.lease.LeaseSettings;
import io.github.ratelimit.core.lease.LeasedRateLimiter;
import io.github.ratelimit.spring.FailureMode;
import io.github.ratelimit.spring.PolicyDefinition;
import io.github.ratelimit.spring.PolicyPlan;
import io.github.ratelimit.spring.RateLimitRegistry;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * Logs, once the application's beans are ready, one INFO line saying what is limited: the backend, the failure
 * mode and every configured policy (limits, algorithm, lease settings of a leased one, key strategy and where it is
 * applied; for a policy with plans, its plan strategy and each plan's limits).
 */
class RateLimitStartupLogger implements SmartInitializingSingleton {

	private static final Log logger = LogFactory.getLog(RateLimitStartupLogger.class);

	private final RateLimitRegistry registry;

	private final FailureMode failureMode;

	/**
	 * Creates the logger.
	 * @param registry the policies
	 * @param failureMode the global failure mode
	 */
	RateLimitStartupLogger(RateLimitRegistry registry, FailureMode failureMode) {
		this.registry = registry;
		this.failureMode = failureMode;
	}

	@Override
	public void afterSingletonsInstantiated() {
		if (logger.isInfoEnabled()) {
			logger.info(summary());
		}
	}

	/**
	 * The line logged at start-up.
	 * @return the summary
	 */
	String summary() {
		List<PolicyDefinition> policies = this.registry.policies();
		String described = policies.isEmpty() ? "none configured"
				: policies.stream().map(this::describe).collect(Collectors.joining("; "));
		return "Rate limiting on backend " + this.registry.backend().name() + ", failure mode " + name(this.failureMode)
				+ ", policies: " + described;
	}

	/**
	 * One policy as the start-up line describes it.
	 * @param policy the policy
	 * @return its name, then its limits, algorithm, key strategy, where it applies and what else differs from the
	 * defaults, in parentheses
	 */
	String describe(PolicyDefinition policy) {
		List<String> parts = new ArrayList<>();
		boolean plans = policy.hasPlans();
		PolicyPlan own = policy.defaultPlan();
		if (plans) {
			String described = policy.plans()
				.stream()
				.map((plan) -> describe(plan, own))
				.collect(Collectors.joining(", "));
			parts.add("plan " + policy.planStrategy() + ", plans " + described);
		}
		else {
			parts.add(limits(own) + lease(own));
		}
		parts.add("key " + policy.keyStrategy());
		parts.add(where(policy));
		if (!plans && own.cost() != 1) {
			parts.add("cost " + own.cost());
		}
		if (policy.failureMode() != this.failureMode) {
			parts.add("failure mode " + name(policy.failureMode()));
		}
		if (policy.shadow()) {
			parts.add("shadow");
		}
		return policy.name() + " (" + String.join(", ", parts) + ")";
	}

	private static String describe(PolicyPlan plan, PolicyPlan defaultPlan) {
		String cost = (plan.cost() != 1) ? ", cost " + plan.cost() : "";
		String isDefault = plan.equals(defaultPlan) ? ", default" : "";
		return plan.plan() + " (" + limits(plan) + lease(plan) + cost + isDefault + ")";
	}

	/**
	 * How a policy without plans, or a plan, leases its permits: empty when it does not.
	 */
	private static String lease(PolicyPlan plan) {
		if (!(plan.limiter() instanceof LeasedRateLimiter leased)) {
			return "";
		}
		LeaseSettings settings = leased.settings();
		return ", leased (batch " + settings.batch() + ((settings.adaptive()) ? " adaptive" : "") + ", max-age "
				+ duration(settings.maxAge().toMillis()) + ")";
	}

	private static String duration(long millis) {
		for (Map.Entry<String, Long> unit : Map.of("d", 86_400_000L, "h", 3_600_000L, "m", 60_000L, "s", 1000L)
			.entrySet()
			.stream()
			.sorted(Map.Entry.<String, Long>comparingByValue().reversed())
			.toList()) {
			if (millis % unit.getValue() == 0) {
				return (millis / unit.getValue()) + unit.getKey();
			}
		}
		return millis + "ms";
	}

	/**
	 * The limits and algorithm of a policy without plans, or of a plan.
	 */
	private static String limits(PolicyPlan plan) {
		return plan.policy().limits().stream().map(Limit::toString).collect(Collectors.joining(", ")) + ", "
				+ plan.policy().algorithm().id();
	}

	private static String where(PolicyDefinition policy) {
		if (policy.paths().isEmpty()) {
			return "@RateLimited only";
		}
		String methods = policy.methods().stream().sorted().collect(Collectors.joining("|"));
		String where = "filter " + (methods.isEmpty() ? "" : methods + " ") + patterns(policy.paths());
		return policy.excludePaths().isEmpty() ? where : where + " except " + patterns(policy.excludePaths());
	}

	private static String patterns(List<String> patterns) {
		return String.join(" ", patterns);
	}

	private static String name(FailureMode mode) {
		return mode.name().toLowerCase(Locale.ROOT);
	}

}
