package io.github.ratelimit.autoconfigure;

import java.util.Set;

import io.github.ratelimit.spring.RateLimitRegistry;

/**
 * The policies a gateway's routes name in their rate limit filters: each must be configured, and a policy a route
 * names is applied even without {@code paths}. A bean of this type per gateway server present; read at start-up and
 * at every configuration refresh.
 */
@FunctionalInterface
interface RoutePolicies {

	/**
	 * The names of the policies the routes name, each checked to be configured.
	 * @param registry the policies, as configured now or by the refresh about to apply
	 * @return the names
	 * @throws InvalidRateLimitConfigurationException naming the route's filter property, the route and the policy,
	 * for a route that names a policy that is not configured
	 */
	Set<String> namedIn(RateLimitRegistry registry);

}
