package io.github.ratelimit.spring;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.core.Limit;
import io.github.ratelimit.core.Policy;
import io.github.ratelimit.core.RateLimiterBackend;
import org.jspecify.annotations.Nullable;

/**
 * Every policy of the application: those configured (which win) and those declared by {@code @RateLimited}
 * annotations that carry their own limits. The configured ones are one immutable set, replaced as a whole by
 * {@link #reconfigure}, so that a reader that takes them once (a filter per request, {@code @RateLimited} per call)
 * sees either the old set or the new one, never a mix.
 */
public class RateLimitRegistry {

	private final RateLimiterBackend backend;

	private volatile Configured configured;

	private final ConcurrentMap<String, PolicyDefinition> declared = new ConcurrentHashMap<>();

	private final ConcurrentMap<String, Set<PolicyUse>> uses = new ConcurrentHashMap<>();

	private final Algorithm defaultAlgorithm;

	private final FailureMode defaultFailureMode;

	private final KeyResolver defaultKeyResolver;

	/**
	 * Creates the registry.
	 * @param backend the backend of declared policies
	 * @param configured the configured policies
	 * @param defaultAlgorithm the algorithm of declared policies that name none
	 * @param defaultFailureMode the failure mode of declared policies
	 * @param defaultKeyResolver the key resolver of declared policies
	 */
	public RateLimitRegistry(RateLimiterBackend backend, Collection<PolicyDefinition> configured,
			Algorithm defaultAlgorithm, FailureMode defaultFailureMode, KeyResolver defaultKeyResolver) {
		this.backend = backend;
		this.configured = new Configured(configured);
		this.defaultAlgorithm = defaultAlgorithm;
		this.defaultFailureMode = defaultFailureMode;
		this.defaultKeyResolver = defaultKeyResolver;
	}

	/**
	 * Replaces the configured policies at once, as a configuration refresh does: every reader that asks afterwards
	 * sees the new set. The {@code @RateLimited} methods that applied them are forgotten until they are bound again
	 * ({@link #recordUse}).
	 * @param policies the new configured policies, already validated
	 */
	public void reconfigure(Collection<PolicyDefinition> policies) {
		this.configured = new Configured(policies);
		this.uses.clear();
	}

	/**
	 * A registry of the same backend and defaults with other configured policies and nothing declared yet, to check
	 * a new configuration against before {@link #reconfigure applying} it.
	 * @param policies the configured policies
	 * @return the new registry
	 */
	public RateLimitRegistry withConfigured(Collection<PolicyDefinition> policies) {
		return new RateLimitRegistry(this.backend, policies, this.defaultAlgorithm, this.defaultFailureMode,
				this.defaultKeyResolver);
	}

	/**
	 * The configured policies now, as one set: a reader that must see one set across several lookups compares or
	 * keeps this.
	 * @return the current set, a new object after every {@link #reconfigure}
	 */
	public Object configuration() {
		return this.configured;
	}

	/**
	 * The backend the policies are decided by.
	 * @return the backend
	 */
	public RateLimiterBackend backend() {
		return this.backend;
	}

	/**
	 * Every policy: the configured ones in configuration order, then those declared by annotations.
	 * @return the policies
	 */
	public List<PolicyDefinition> policies() {
		List<PolicyDefinition> all = new ArrayList<>(this.configured.byName().values());
		this.declared.values().stream()
			.sorted(Comparator.comparing(PolicyDefinition::name))
			.forEach(all::add);
		return all;
	}

	/**
	 * The configured policies that have paths, applied by the web filters (before and after authentication).
	 * @return the filter's policies
	 */
	public List<PolicyDefinition> filterPolicies() {
		return this.configured.filter();
	}

	/**
	 * The configured policies with paths that one of the web filters applies, in configuration order: the filter in
	 * front of authentication (so that requests it refuses are counted too) or the one behind it, for policies whose
	 * key or plan resolver {@linkplain KeyResolver#requiresAuthentication() needs the user}.
	 * @param afterAuthentication {@code true} for the filter behind authentication, {@code false} for the one in
	 * front of it
	 * @return the policies of that filter
	 */
	public List<PolicyDefinition> filterPolicies(boolean afterAuthentication) {
		return afterAuthentication ? this.configured.afterAuthentication() : this.configured.beforeAuthentication();
	}

	/**
	 * Whether a policy comes from configuration ({@code ratelimit.policies.<name>}) rather than from annotations.
	 * @param name the policy name
	 * @return whether it is configured
	 */
	public boolean isConfigured(String name) {
		return this.configured.byName().containsKey(name);
	}

	/**
	 * Finds a policy by name.
	 * @param name the name
	 * @return the policy, if configured or declared
	 */
	public Optional<PolicyDefinition> find(String name) {
		PolicyDefinition policy = this.configured.byName().get(name);
		return Optional.ofNullable((policy != null) ? policy : this.declared.get(name));
	}

	/**
	 * The policy of a {@code @RateLimited} annotation: the configured policy of that name if there is one, else a
	 * policy of the annotation's own limits.
	 * @param name the policy name
	 * @param limits the annotation's limits, such as {@code "10/1m"}
	 * @param algorithm the annotation's algorithm, or {@code null} for the default
	 * @return the policy
	 * @throws IllegalStateException when no policy of that name is configured and the annotation has no limits, or
	 * when another annotation declared the same name with other limits or another algorithm
	 * @throws IllegalArgumentException when the annotation's limits are invalid
	 */
	public PolicyDefinition declare(String name, List<String> limits, @Nullable Algorithm algorithm) {
		PolicyDefinition configuredPolicy = this.configured.byName().get(name);
		if (configuredPolicy != null) {
			return configuredPolicy;
		}
		if (limits.isEmpty()) {
			throw new IllegalStateException("No rate limit policy '" + name
					+ "': configure ratelimit.policies." + name + ".limits or give the annotation limits");
		}
		Policy policy = new Policy(name, (algorithm != null) ? algorithm : this.defaultAlgorithm,
				limits.stream().map(Limit::parse).toList());
		PolicyDefinition declaredPolicy = this.declared.computeIfAbsent(name,
				(key) -> PolicyDefinition.of(policy, this.backend.create(policy), "ip", this.defaultKeyResolver,
						List.of(), List.of(), Set.of(), 1, this.defaultFailureMode, false));
		Policy declared = declaredPolicy.defaultPlan().policy();
		if (!declared.equals(policy)) {
			throw new IllegalStateException("Rate limit policy '" + name + "' is declared by @RateLimited both as "
					+ describe(declared) + " and as " + describe(policy)
					+ "; give one of them another name, or configure ratelimit.policies." + name);
		}
		return declaredPolicy;
	}

	/**
	 * Records that a {@code @RateLimited} method applies a policy.
	 * @param policy the policy name
	 * @param use the method, with its key and cost
	 */
	public void recordUse(String policy, PolicyUse use) {
		this.uses.computeIfAbsent(policy, (name) -> ConcurrentHashMap.newKeySet()).add(use);
	}

	/**
	 * The {@code @RateLimited} methods that apply a policy, ordered by method.
	 * @param policy the policy name
	 * @return the uses, empty when no annotation names the policy
	 */
	public List<PolicyUse> uses(String policy) {
		return this.uses.getOrDefault(policy, Set.of()).stream()
			.sorted(Comparator.comparing(PolicyUse::method))
			.toList();
	}

	private static String describe(Policy policy) {
		return policy.algorithm().id() + " " + policy.limits();
	}

	/**
	 * One set of configured policies: by name in configuration order, and those of the filter, of each phase.
	 */
	private record Configured(Map<String, PolicyDefinition> byName, List<PolicyDefinition> filter,
			List<PolicyDefinition> beforeAuthentication, List<PolicyDefinition> afterAuthentication) {

		Configured(Collection<PolicyDefinition> policies) {
			this(byName(policies), policies.stream().filter((policy) -> !policy.paths().isEmpty()).toList(),
					phase(policies, false), phase(policies, true));
		}

		private static Map<String, PolicyDefinition> byName(Collection<PolicyDefinition> policies) {
			Map<String, PolicyDefinition> byName = new LinkedHashMap<>();
			policies.forEach((policy) -> byName.put(policy.name(), policy));
			return Collections.unmodifiableMap(byName);
		}

		private static List<PolicyDefinition> phase(Collection<PolicyDefinition> policies,
				boolean afterAuthentication) {
			return policies.stream()
				.filter((policy) -> !policy.paths().isEmpty() && policy.afterAuthentication() == afterAuthentication)
				.toList();
		}

	}

}
