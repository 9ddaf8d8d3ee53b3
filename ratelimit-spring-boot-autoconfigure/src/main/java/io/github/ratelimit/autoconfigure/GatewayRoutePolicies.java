package io.github.ratelimit.autoconfigure;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import io.github.ratelimit.spring.RateLimitRegistry;
import io.github.ratelimit.spring.web.gateway.webflux.PolicyRateLimiter;
import io.github.ratelimit.spring.web.gateway.webflux.RateLimitGatewayFilterFactory;

import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.cloud.gateway.config.GatewayProperties;
import org.springframework.cloud.gateway.filter.FilterDefinition;
import org.springframework.cloud.gateway.filter.factory.RequestRateLimiterGatewayFilterFactory;
import org.springframework.cloud.gateway.route.RouteDefinition;
import org.springframework.cloud.gateway.support.NameUtils;
import org.springframework.core.env.Environment;
import org.springframework.util.StringUtils;

/**
 * The policies the WebFlux gateway's routes name: those of the routes in configuration
 * ({@code spring.cloud.gateway.server.webflux.routes} and {@code default-filters}), in their {@code RateLimit} filters
 * and in the {@code policy-rate-limiter.policy} argument of their {@code RequestRateLimiter} filters, checked against
 * the configured policies; and, counted as applied only, those of the routes the {@code RateLimit} filter factory has
 * built (the Java DSL's are built with their {@code RouteLocator} beans, before start-up checks the policies, and
 * fail there when they name one that is not configured).
 */
final class GatewayRoutePolicies implements RoutePolicies {

	private static final String REQUEST_RATE_LIMITER = NameUtils
		.normalizeFilterFactoryName(RequestRateLimiterGatewayFilterFactory.class);

	private static final String POLICY_ARGUMENT = PolicyRateLimiter.CONFIGURATION_PROPERTY_NAME + ".policy";

	private final Environment environment;

	private final RateLimitGatewayFilterFactory filters;

	GatewayRoutePolicies(Environment environment, RateLimitGatewayFilterFactory filters) {
		this.environment = environment;
		this.filters = filters;
	}

	@Override
	public Set<String> names() {
		Set<String> names = new LinkedHashSet<>(this.filters.appliedPolicies());
		configured().forEach((named) -> names.add(named.policy()));
		return names;
	}

	@Override
	public void requireConfigured(RateLimitRegistry registry) {
		for (Named named : configured()) {
			if (!registry.isConfigured(named.policy())) {
				throw new InvalidRateLimitConfigurationException(named.property(),
						named.route() + " names rate limit policy '" + named.policy()
								+ "', and no such policy is configured",
						"configure ratelimit.policies." + named.policy() + " or correct the route", null);
			}
		}
	}

	/**
	 * Every policy a route in configuration names, with where: the routes as the environment has them now, so that a
	 * configuration refresh is checked against its own routes, whenever the gateway's properties are bound again.
	 */
	private List<Named> configured() {
		GatewayProperties properties = Binder.get(this.environment)
			.bind(GatewayProperties.PREFIX, GatewayProperties.class)
			.orElseGet(GatewayProperties::new);
		List<Named> named = new ArrayList<>();
		List<FilterDefinition> defaults = properties.getDefaultFilters();
		for (int i = 0; i < defaults.size(); i++) {
			add(named, defaults.get(i), GatewayProperties.PREFIX + ".default-filters[" + i + "]", "Every route");
		}
		List<RouteDefinition> routes = properties.getRoutes();
		for (int i = 0; i < routes.size(); i++) {
			List<FilterDefinition> filters = routes.get(i).getFilters();
			for (int j = 0; j < filters.size(); j++) {
				add(named, filters.get(j), GatewayProperties.PREFIX + ".routes[" + i + "].filters[" + j + "]",
						"Route '" + routes.get(i).getId() + "'");
			}
		}
		return named;
	}

	private void add(List<Named> named, FilterDefinition filter, String property, String route) {
		if (this.filters.name().equals(filter.getName())) {
			for (Map.Entry<String, String> argument : filter.getArgs().entrySet()) {
				String key = argument.getKey();
				if (key.startsWith(NameUtils.GENERATED_NAME_PREFIX) || key.startsWith(
						RateLimitGatewayFilterFactory.POLICIES_KEY)) {
					for (String policy : StringUtils.commaDelimitedListToStringArray(argument.getValue())) {
						named.add(new Named(property, route, policy.trim()));
					}
				}
			}
		}
		else if (REQUEST_RATE_LIMITER.equals(filter.getName())) {
			filter.getArgs().forEach((key, value) -> {
				if (canonical(key).equals(canonical(POLICY_ARGUMENT))) {
					named.add(new Named(property + ".args." + key, route, value.trim()));
				}
			});
		}
	}

	private static String canonical(String key) {
		return key.replace("-", "").toLowerCase(Locale.ROOT);
	}

	/** A policy a route names. */
	private record Named(String property, String route, String policy) {
	}

}
