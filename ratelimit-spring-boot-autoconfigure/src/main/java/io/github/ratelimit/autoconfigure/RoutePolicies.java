package io.github.ratelimit.autoconfigure;

import java.util.Set;

import io.github.ratelimit.spring.RateLimitRegistry;

/**
 * The policies a gateway's routes apply by name: counted as applied by the start-up check of policies without
 * {@code paths} ({@link AppliedPolicies}), and checked against the configured policies at start-up and at every
 * configuration refresh.
 */
interface RoutePolicies {

	/**
	 * The names of the policies the routes apply.
	 * @return the names
	 */
	Set<String> names();

	/**
	 * Checks that every policy a route names is configured.
	 * @param registry the policies
	 * @throws InvalidRateLimitConfigurationException naming the route's property and the policy
	 */
	void requireConfigured(RateLimitRegistry registry);

}
