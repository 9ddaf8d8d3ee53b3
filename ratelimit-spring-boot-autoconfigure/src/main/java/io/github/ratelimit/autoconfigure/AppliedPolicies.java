package io.github.ratelimit.autoconfigure;

import java.util.Set;

import io.github.ratelimit.spring.PolicyDefinition;
import io.github.ratelimit.spring.RateLimitRegistry;

/**
 * Stops start-up for a configured policy that nothing applies: no {@code paths} for the filter and no
 * {@code @RateLimited} naming it (a typo such as {@code path:} for {@code paths:} would otherwise limit nothing).
 */
final class AppliedPolicies {

	private AppliedPolicies() {
	}

	/**
	 * Checks that every policy is applied by the filter or by an annotation.
	 * @param registry the policies
	 * @param annotated the names of the policies {@code @RateLimited} annotations apply
	 * @throws InvalidRateLimitConfigurationException naming the first policy applied nowhere
	 */
	static void requireEveryPolicyApplied(RateLimitRegistry registry, Set<String> annotated) {
		for (PolicyDefinition policy : registry.policies()) {
			if (policy.paths().isEmpty() && !annotated.contains(policy.name())) {
				throw new InvalidRateLimitConfigurationException("ratelimit.policies." + policy.name(),
						"the policy has no paths and no @RateLimited names it, so it limits nothing",
						"give it paths (ratelimit.policies." + policy.name() + ".paths) for the filter, name it in "
								+ "@RateLimited(\"" + policy.name() + "\") on a bean's method, or remove it",
						null);
			}
		}
	}

}
