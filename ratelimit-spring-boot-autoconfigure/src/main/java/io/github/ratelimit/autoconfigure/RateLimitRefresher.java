package io.github.ratelimit.autoconfigure;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import io.github.ratelimit.core.RateLimiterBackend;
import io.github.ratelimit.spring.IpKeys;
import io.github.ratelimit.spring.PolicyLeases;
import io.github.ratelimit.spring.PolicyDefinition;
import io.github.ratelimit.spring.RateLimitEnforcer;
import io.github.ratelimit.spring.RateLimitRegistry;
import io.github.ratelimit.spring.annotation.InvalidRateLimitedException;
import io.github.ratelimit.spring.annotation.RateLimitedPolicies;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.context.properties.bind.handler.IgnoreTopLevelConverterNotFoundBindHandler;
import org.springframework.boot.context.properties.bind.handler.NoUnboundElementsBindHandler;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.UnboundElementsSourceFilter;
import org.springframework.core.env.Environment;

/**
 * Applies a change of {@code ratelimit.policies.*} at runtime (Spring Cloud's configuration refresh): binds the
 * policies afresh from the {@link Environment}, checks them as start-up would (annotations included), and on success
 * replaces the registry's policies at once, logging what changed; an invalid configuration is logged, naming the
 * property, and the running policies stay. Other {@code ratelimit.*} settings are read at start-up only: a change of
 * them is logged and not applied. It never reads the {@link RateLimitProperties} bean, which Spring Cloud rebinds in
 * place (and leaves half bound when a value is invalid). Leased limiters that no policy uses after a refresh (those
 * replaced, or built for a configuration that was not applied) are closed, their unused permits returned where the
 * algorithm takes them back.
 */
final class RateLimitRefresher {

	private static final Log logger = LogFactory.getLog(RateLimitRefresher.class);

	private static final ConfigurationPropertyName RATELIMIT = ConfigurationPropertyName.of("ratelimit");

	private static final ConfigurationPropertyName POLICIES = ConfigurationPropertyName.of("ratelimit.policies");

	private final Environment environment;

	private final RateLimitRegistry registry;

	private final ConfiguredPolicies configuredPolicies;

	private final RateLimitEnforcer enforcer;

	private final RateLimitStartupLogger describer;

	private final ObjectProvider<RateLimitedPolicies> annotated;

	private final ObjectProvider<RoutePolicies> routes;

	private final PolicyLeases leases;

	/** What each applied policy is, to tell which a refresh changed. */
	private Map<String, String> applied;

	RateLimitRefresher(Environment environment, RateLimitRegistry registry, RateLimiterBackend backend,
			BeanFactory beanFactory, IpKeys ipKeys, RateLimitEnforcer enforcer, RateLimitStartupLogger describer,
			ObjectProvider<RateLimitedPolicies> annotated, ObjectProvider<RoutePolicies> routes, PolicyLeases leases) {
		this.environment = environment;
		this.registry = registry;
		this.leases = leases;
		RateLimitProperties startup = bind(environment);
		this.configuredPolicies = new ConfiguredPolicies(startup, backend, beanFactory, ipKeys, leases);
		this.enforcer = enforcer;
		this.describer = describer;
		this.annotated = annotated;
		this.routes = routes;
		this.applied = describe(registry.policies().stream().filter((policy) -> registry.isConfigured(policy.name()))
			.toList());
	}

	/**
	 * Applies the configuration after a change of the environment.
	 * @param changedKeys the names of the properties that changed, as their sources spell them
	 * @return whether the policies were replaced
	 */
	synchronized boolean refresh(Collection<String> changedKeys) {
		Set<String> restartOnly = new TreeSet<>();
		boolean policiesChanged = false;
		for (String key : changedKeys) {
			ConfigurationPropertyName name = ConfigurationPropertyName.adapt(key, '.');
			if (POLICIES.isAncestorOf(name)) {
				policiesChanged = true;
			}
			else if (RATELIMIT.isAncestorOf(name)) {
				restartOnly.add(key);
			}
		}
		if (!policiesChanged && restartOnly.isEmpty()) {
			return false;
		}
		try {
			RateLimitProperties settings = bind(this.environment);
			if (!restartOnly.isEmpty()) {
				logger.warn("Rate limiting settings changed at runtime apply only at the next start: "
						+ String.join(", ", restartOnly) + " (ratelimit.policies.* apply live)");
			}
			return policiesChanged && apply(settings.getPolicies());
		}
		catch (InvalidRateLimitConfigurationException ex) {
			reject(ex, ex.getAction());
		}
		catch (InvalidRateLimitedException ex) {
			reject(ex, ex.getAction());
		}
		finally {
			this.leases.retainOnly(this.registry.policies());
		}
		return false;
	}

	private static void reject(RuntimeException ex, String action) {
		logger.error("Rate limit configuration refresh rejected, the running policies stay: " + ex.getMessage()
				+ ". Action: " + action);
	}

	private boolean apply(Map<String, RateLimitProperties.PolicyProperties> settings) {
		List<PolicyDefinition> policies = this.configuredPolicies.definitions(settings);
		RateLimitRegistry candidate = this.registry.withConfigured(policies);
		RateLimitedPolicies annotations = this.annotated.getIfAvailable();
		if (annotations != null) {
			annotations.check(candidate);
		}
		AppliedPolicies.requireEveryPolicyApplied(candidate,
				(annotations != null) ? annotations.policyNames() : Set.of(), this.routes.orderedStream().toList());
		Map<String, String> described = describe(policies);
		String changes = changes(this.applied, described);
		if (changes.isEmpty()) {
			logger.info("Rate limit configuration refreshed, no policy changed");
			return false;
		}
		this.registry.reconfigure(policies);
		this.enforcer.forgetDenials();
		if (annotations != null) {
			annotations.bindAgain();
		}
		this.applied = described;
		logger.info("Rate limit configuration refreshed: " + changes);
		return true;
	}

	/**
	 * Each policy as the start-up line describes it (plans included), to tell which a refresh changed.
	 */
	private Map<String, String> describe(List<PolicyDefinition> policies) {
		Map<String, String> described = new LinkedHashMap<>();
		for (PolicyDefinition policy : policies) {
			described.put(policy.name(), this.describer.describe(policy));
		}
		return described;
	}

	private static String changes(Map<String, String> before, Map<String, String> after) {
		List<String> added = new ArrayList<>();
		List<String> changed = new ArrayList<>();
		after.forEach((name, description) -> {
			String previous = before.get(name);
			if (previous == null) {
				added.add(description);
			}
			else if (!previous.equals(description)) {
				changed.add(description);
			}
		});
		Set<String> removed = new LinkedHashSet<>(before.keySet());
		removed.removeAll(after.keySet());
		List<String> parts = new ArrayList<>();
		if (!added.isEmpty()) {
			parts.add("added " + String.join("; ", added));
		}
		if (!changed.isEmpty()) {
			parts.add("changed " + String.join("; ", changed));
		}
		if (!removed.isEmpty()) {
			parts.add("removed " + String.join(", ", removed));
		}
		return String.join("; ", parts);
	}

	/**
	 * Binds {@code ratelimit.*} as the {@link RateLimitProperties} bean is bound, unknown properties refused.
	 */
	private static RateLimitProperties bind(Environment environment) {
		RateLimitProperties properties = new RateLimitProperties();
		try {
			Binder.get(environment).bind("ratelimit", Bindable.ofInstance(properties),
					new NoUnboundElementsBindHandler(new IgnoreTopLevelConverterNotFoundBindHandler(),
							new UnboundElementsSourceFilter()));
		}
		catch (BindException ex) {
			throw invalid(ex);
		}
		return properties;
	}

	private static InvalidRateLimitConfigurationException invalid(BindException ex) {
		Throwable cause = ex.getCause();
		if (cause instanceof UnboundConfigurationPropertiesException unbound) {
			String names = unbound.getUnboundProperties().stream().map((property) -> property.getName().toString())
				.sorted().collect(Collectors.joining(", "));
			return new InvalidRateLimitConfigurationException(names, "no such rate limiting setting",
					"correct the property's name (docs/properties.md of the ratelimit guide lists every "
							+ "ratelimit.* property)",
					ex);
		}
		String property = (ex.getProperty() != null) ? ex.getProperty().getName().toString() : ex.getName().toString();
		return new InvalidRateLimitConfigurationException(property, message(ex),
				"give the property a valid value, as docs/properties.md of the ratelimit guide describes it", ex);
	}

	private static String message(Throwable ex) {
		Throwable cause = ex;
		while (cause.getCause() != null) {
			cause = cause.getCause();
		}
		return String.valueOf(cause.getMessage());
	}

}
