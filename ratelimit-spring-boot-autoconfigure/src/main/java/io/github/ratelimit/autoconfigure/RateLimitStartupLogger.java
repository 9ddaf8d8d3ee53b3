package io.github.ratelimit.autoconfigure;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import io.github.ratelimit.core.Limit;
import io.github.ratelimit.core.lease.LeaseSettings;
import io.github.ratelimit.core.lease.LeasedRateLimiter;
import io.github.ratelimit.spring.FailureMode;
import io.github.ratelimit.spring.PolicyDefinition;
import io.github.ratelimit.spring.PolicyPlan;
import io.github.ratelimit.spring.PolicyUse;
import io.github.ratelimit.spring.RateLimitRegistry;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.context.ApplicationListener;
import org.springframework.context.event.ContextRefreshedEvent;
import org.springframework.format.annotation.DurationFormat;
import org.springframework.format.datetime.standard.DurationFormatterUtils;

/**
 * Logs, once the application has started (its {@code @RateLimited} methods bound to their policies), one INFO line
 * saying what is limited: the backend, the failure mode and every policy, configured or declared by an annotation
 * (limits, algorithm, lease settings of a leased one, the keys it counts by and where it is applied; for a policy with
 * plans, its plan strategy and each plan's limits).
 */
class RateLimitStartupLogger implements ApplicationListener<ContextRefreshedEvent> {

	private static final Log logger = LogFactory.getLog(RateLimitStartupLogger.class);

	private final RateLimitRegistry registry;

	private final FailureMode failureMode;

	private final Supplier<Set<String>> routed;

	private final AtomicBoolean logged = new AtomicBoolean();

	/**
	 * Creates the logger.
	 * @param registry the policies
	 * @param failureMode the global failure mode
	 * @param routed the names of the policies gateway routes apply
	 */
	RateLimitStartupLogger(RateLimitRegistry registry, FailureMode failureMode, Supplier<Set<String>> routed) {
		this.registry = registry;
		this.failureMode = failureMode;
		this.routed = routed;
	}

	/**
	 * Logs the summary once, when the application's context (the first, with a management context of its own) has
	 * started: after the start-up check of {@code @RateLimited} methods declared their policies and recorded how
	 * each method keys its calls.
	 */
	@Override
	public void onApplicationEvent(ContextRefreshedEvent event) {
		if (this.logged.compareAndSet(false, true) && logger.isInfoEnabled()) {
			logger.info(summary());
		}
	}

	/**
	 * The line logged at start-up.
	 * @return the summary
	 */
	String summary() {
		List<PolicyDefinition> policies = this.registry.policies();
		Set<String> routed = this.routed.get();
		String described = policies.isEmpty() ? "none configured"
				: policies.stream()
					.map((policy) -> describe(policy, keys(policy, routed), routed)).collect(Collectors.joining("; "));
		return "Rate limiting on backend " + this.registry.backend().name() + ", failure mode " + name(this.failureMode)
				+ ", policies: " + described;
	}

	/**
	 * The keys a policy counts requests by: its key strategy where the filter or a route applies it, and the key each
	 * {@code @RateLimited} method applies it with (the annotation's key expression, else the policy's key strategy,
	 * or the global key in an application without a web stack), each different one once.
	 */
	private String keys(PolicyDefinition policy, Set<String> routed) {
		List<PolicyUse> uses = this.registry.uses(policy.name());
		Set<String> keys = new LinkedHashSet<>();
		if (!policy.paths().isEmpty() || routed.contains(policy.name()) || uses.isEmpty()) {
			keys.add(policy.keyStrategy());
		}
		uses.forEach((use) -> keys.add(use.key()));
		return String.join(" | ", keys);
	}

	/**
	 * One policy as configured, as the line of a configuration refresh describes it: its key strategy as configured.
	 * @param policy the policy
	 * @return its name, then its limits, algorithm, key strategy, where it applies and what else differs from the
	 * defaults, in parentheses
	 */
	String describe(PolicyDefinition policy) {
		return describe(policy, policy.keyStrategy(), this.routed.get());
	}

	private String describe(PolicyDefinition policy, String keys, Set<String> routed) {
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
		parts.add("key " + keys);
		parts.add(where(policy, routed.contains(policy.name())));
		if (!plans && own.cost() != 1) {
			parts.add("cost " + own.cost());
		}
		if (policy.failureMode() != this.failureMode) {
			parts.add("failure mode " + name(policy.failureMode()));
		}
		if (policy.shadow()) {
			parts.add("shadow");
		}
		if (!policy.maxWait().isZero()) {
			parts.add("waits up to " + DurationFormatterUtils.print(policy.maxWait(), DurationFormat.Style.SIMPLE));
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

	private static String where(PolicyDefinition policy, boolean routed) {
		if (policy.paths().isEmpty()) {
			return routed ? "gateway routes" : "@RateLimited only";
		}
		String methods = policy.methods().stream().sorted().collect(Collectors.joining("|"));
		String where = "filter " + (methods.isEmpty() ? "" : methods + " ") + patterns(policy.paths());
		where = policy.excludePaths().isEmpty() ? where : where + " except " + patterns(policy.excludePaths());
		return routed ? where + ", gateway routes" : where;
	}

	private static String patterns(List<String> patterns) {
		return String.join(" ", patterns);
	}

	private static String name(FailureMode mode) {
		return mode.name().toLowerCase(Locale.ROOT);
	}

}
