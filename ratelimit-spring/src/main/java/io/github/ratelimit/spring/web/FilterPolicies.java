package io.github.ratelimit.spring.web;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

import io.github.ratelimit.spring.PolicyDefinition;
import io.github.ratelimit.spring.RateLimitChain;

import org.springframework.http.HttpMethod;
import org.springframework.http.server.PathContainer;
import org.springframework.web.util.pattern.PathPattern;
import org.springframework.web.util.pattern.PathPatternParser;

/**
 * The policies a web filter applies, and the requests each applies to: the filter's policies as their source has them
 * at each request (one phase's of the registry, which a configuration refresh replaces), their {@code paths} and
 * {@code exclude-paths} compiled into Spring's {@link PathPattern}s once per set of policies, never per request, and
 * the HTTP methods each is limited to ({@code HEAD} wherever {@code GET} is, since Spring MVC serves {@code HEAD} with
 * the {@code GET} handler). Both web filters match requests here, so that the web-neutral policies hold their
 * patterns as text.
 */
public final class FilterPolicies {

	private final Supplier<List<PolicyDefinition>> source;

	private volatile Compiled compiled = new Compiled(List.of(), List.of());

	/**
	 * Creates the policies of a filter.
	 * @param source the filter's policies, in order, as they are at each request
	 */
	public FilterPolicies(Supplier<List<PolicyDefinition>> source) {
		this.source = source;
	}

	/**
	 * The policies of a filter that never change.
	 * @param policies the policies, in order
	 * @return their filter policies
	 */
	public static FilterPolicies of(List<PolicyDefinition> policies) {
		List<PolicyDefinition> copy = List.copyOf(policies);
		return new FilterPolicies(() -> copy);
	}

	/**
	 * Whether the filter has no policy now, so that it need not look at the request.
	 * @return whether it has none
	 */
	public boolean isEmpty() {
		return this.source.get().isEmpty();
	}

	/**
	 * The steps of the policies that apply to a request.
	 * @param method the request's method
	 * @param path the request's path within the application
	 * @return the steps of the policies whose paths and methods match, in order
	 */
	public List<RateLimitChain.Step> stepsFor(String method, PathContainer path) {
		List<RateLimitChain.Step> applicable = null;
		List<Matcher> matchers = current().matchers();
		for (Matcher matcher : matchers) {
			if (matcher.appliesTo(method, path)) {
				if (applicable == null) {
					applicable = new ArrayList<>(matchers.size());
				}
				applicable.add(RateLimitChain.Step.of(matcher.policy()));
			}
		}
		return (applicable != null) ? applicable : List.of();
	}

	/**
	 * Whether a policy limits requests of a method: every method when it names none, {@code HEAD} wherever it names
	 * {@code GET}.
	 * @param policy the policy
	 * @param method the request's method
	 * @return whether the policy applies to it
	 */
	public static boolean limitsMethod(PolicyDefinition policy, String method) {
		Set<String> methods = policy.methods();
		return methods.isEmpty() || methods.contains(method)
				|| (HttpMethod.HEAD.name().equals(method) && methods.contains(HttpMethod.GET.name()));
	}

	private Compiled current() {
		List<PolicyDefinition> policies = this.source.get();
		Compiled current = this.compiled;
		if (current.policies() != policies) {
			current = new Compiled(policies, policies.stream().map(Matcher::of).toList());
			this.compiled = current;
		}
		return current;
	}

	/** A set of policies and their compiled matchers. */
	private record Compiled(List<PolicyDefinition> policies, List<Matcher> matchers) {
	}

	/** Whether a policy applies to a request. */
	private record Matcher(PolicyDefinition policy, List<PathPattern> paths, List<PathPattern> excludePaths) {

		static Matcher of(PolicyDefinition policy) {
			return new Matcher(policy, parse(policy.paths()), parse(policy.excludePaths()));
		}

		boolean appliesTo(String method, PathContainer path) {
			if (this.paths.isEmpty() || !limitsMethod(this.policy, method)) {
				return false;
			}
			return matchesAny(this.paths, path) && !matchesAny(this.excludePaths, path);
		}

		private static boolean matchesAny(List<PathPattern> patterns, PathContainer path) {
			for (PathPattern pattern : patterns) {
				if (pattern.matches(path)) {
					return true;
				}
			}
			return false;
		}

		private static List<PathPattern> parse(List<String> patterns) {
			return patterns.stream().map(PathPatternParser.defaultInstance::parse).toList();
		}

	}

}
