package io.github.ratelimit.autoconfigure;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import io.github.ratelimit.spring.PolicyDefinition;
import io.github.ratelimit.spring.RateLimitRegistry;

/**
 * Stops start-up for a configured policy that nothing applies: no {@code paths} for the filter, no
 * {@code @RateLimited} and no gateway route naming it (a typo such as {@code path:} for {@code paths:} would otherwise
 * limit nothing), and for a gateway route that names a policy that is not configured.
 */
final class AppliedPolicies {

	private AppliedPolicies() {
	}

	/**
	 * Checks that every policy a route names is configured, and that every policy is applied by the filter, by an
	 * annotation or by a route.
	 * @param registry the policies
	 * @param annotated the names of the policies {@code @RateLimited} annotations apply
	 * @param routes the policies of the gateway's routes, if any
	 * @throws InvalidRateLimitConfigurationException naming a route's policy that is not configured, or the first
	 * policy applied nowhere
	 */
	static void requireEveryPolicyApplied(RateLimitRegistry registry, Set<String> annotated,
			List<RoutePolicies> routes) {
		Set<String> applied = new HashSet<>(annotated);
		for (RoutePolicies route : routes) {
			route.requireConfigured(registry);
			applied.addAll(route.names());
		}
		for (PolicyDefinition policy : registry.policies()) {
			if (policy.paths().isEmpty() && !applied.contains(policy.name())) {
				throw new InvalidRateLimitConfigurationException("ratelimit.policies." + policy.name(),
						"the policy has no paths and no @RateLimited names it, so it limits nothing",
						"give it paths (ratelimit.policies." + policy.name() + ".paths) for the filter, name it in "
								+ "@RateLimited(\"" + policy.name() + "\") on a bean's method or in a gateway "
								+ "route's RateLimit filter, or remove it",
						null);
			}
		}
	}

}
