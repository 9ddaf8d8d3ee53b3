package io.github.ratelimit.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

import io.github.ratelimit.autoconfigure.RateLimitProperties.LimitProperties;
import io.github.ratelimit.core.Limit;
import io.github.ratelimit.core.Policy;
import io.github.ratelimit.core.RateLimiterBackend;
import io.github.ratelimit.spring.FailureMode;
import io.github.ratelimit.spring.IpKeys;
import io.github.ratelimit.spring.KeyResolver;
import io.github.ratelimit.spring.PolicyDefinition;
import io.github.ratelimit.spring.RequestKeyResolvers;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.http.HttpMethod;
import org.springframework.web.util.pattern.PathPattern;
import org.springframework.web.util.pattern.PathPatternParser;
import org.springframework.web.util.pattern.PatternParseException;

/**
 * Turns {@code ratelimit.policies.*} into policy definitions, refusing invalid values with an exception that names
 * the property and the fix.
 */
final class ConfiguredPolicies {

	private static final Set<String> HTTP_METHODS = Set.of("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS",
			"TRACE");

	private final RateLimitProperties properties;

	private final RateLimiterBackend backend;

	private final BeanFactory beanFactory;

	private final IpKeys ipKeys;

	ConfiguredPolicies(RateLimitProperties properties, RateLimiterBackend backend, BeanFactory beanFactory,
			IpKeys ipKeys) {
		this.properties = properties;
		this.backend = backend;
		this.beanFactory = beanFactory;
		this.ipKeys = ipKeys;
	}

	List<PolicyDefinition> definitions() {
		List<PolicyDefinition> definitions = new ArrayList<>();
		for (Map.Entry<String, RateLimitProperties.Policy> entry : this.properties.getPolicies().entrySet()) {
			definitions.add(definition(entry.getKey(), entry.getValue()));
		}
		return definitions;
	}

	private PolicyDefinition definition(String name, RateLimitProperties.Policy settings) {
		String prefix = "ratelimit.policies." + name + ".";
		List<Limit> limits = limits(prefix + "limits", settings.getLimits());
		Policy policy = check("ratelimit.policies." + name, () -> new Policy(name,
				(settings.getAlgorithm() != null) ? settings.getAlgorithm() : this.properties.getAlgorithm(), limits),
				"use a policy name without '{' or '}', and limits within the bounds of the policy's algorithm (see the message)");
		KeyResolver keyResolver = check(prefix + "key",
				() -> RequestKeyResolvers.of(settings.getKey(), this.beanFactory, this.ipKeys),
				"use ip, global, principal, header:<Name>, param:<name>, expr:<SpEL> or bean:<KeyResolver bean>");
		if (settings.getCost() < 1) {
			throw new InvalidRateLimitConfigurationException(prefix + "cost",
					"the cost must be at least 1, was " + settings.getCost(), "set a cost of 1 or more permits", null);
		}
		if (settings.getCost() > policy.smallestCapacity()) {
			throw new InvalidRateLimitConfigurationException(prefix + "cost",
					"a cost of " + settings.getCost() + " exceeds the capacity " + policy.smallestCapacity()
							+ ", so every request would be refused",
					"lower the cost or raise the capacity", null);
		}
		FailureMode failureMode = (settings.getFailureMode() != null) ? settings.getFailureMode()
				: this.properties.getFailureMode();
		if (failureMode == FailureMode.LOCAL) {
			checkFallbackCapacity(prefix, policy, settings.getCost());
		}
		return new PolicyDefinition(policy, this.backend.create(policy), settings.getKey(), keyResolver,
				patterns(prefix + "paths", settings.getPaths()),
				patterns(prefix + "exclude-paths", settings.getExcludePaths()),
				methods(prefix + "methods", settings.getMethods()), settings.getCost(), failureMode,
				settings.isShadow());
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

	private static List<PathPattern> patterns(String property, List<String> patterns) {
		List<PathPattern> parsed = new ArrayList<>();
		for (int i = 0; i < patterns.size(); i++) {
			String pattern = patterns.get(i);
			parsed.add(check(property + "[" + i + "]", () -> parse(pattern),
					"use Spring PathPattern syntax, such as /api/** or /orders/{id}"));
		}
		return List.copyOf(parsed);
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
