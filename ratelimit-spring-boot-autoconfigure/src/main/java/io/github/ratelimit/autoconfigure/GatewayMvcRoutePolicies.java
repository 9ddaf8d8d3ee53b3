package io.github.ratelimit.autoconfigure;

import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.github.ratelimit.spring.RateLimitRegistry;
import io.github.ratelimit.spring.web.gateway.webmvc.RateLimitFilterFunctions;

import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.cloud.gateway.server.mvc.common.NameUtils;
import org.springframework.cloud.gateway.server.mvc.config.FilterProperties;
import org.springframework.cloud.gateway.server.mvc.config.GatewayMvcProperties;
import org.springframework.cloud.gateway.server.mvc.config.RouteProperties;
import org.springframework.core.env.Environment;
import org.springframework.util.StringUtils;

/**
 * The policies the routes of Spring Cloud Gateway's WebMVC server name: those of the {@code RateLimit} filters of its
 * YAML routes ({@code spring.cloud.gateway.server.webmvc.routes} and {@code routes-map}), bound from the environment as
 * the gateway binds them, each checked to be configured; and those named by routes of the Java DSL, which cannot be
 * read back and are checked at their requests.
 */
final class GatewayMvcRoutePolicies implements RoutePolicies {

	/** The argument naming the policies, as {@code RateLimitFilterFunctions.rateLimit} names its parameter. */
	private static final String POLICIES = "policies";

	private final Environment environment;

	GatewayMvcRoutePolicies(Environment environment) {
		this.environment = environment;
	}

	@Override
	public Set<String> namedIn(RateLimitRegistry registry) {
		GatewayMvcProperties gateway = Binder.get(this.environment)
			.bindOrCreate(GatewayMvcProperties.PREFIX, GatewayMvcProperties.class);
		Set<String> names = new LinkedHashSet<>(RateLimitFilterFunctions.policiesNamedByRoutes());
		List<RouteProperties> routes = gateway.getRoutes();
		for (int i = 0; i < routes.size(); i++) {
			RouteProperties route = routes.get(i);
			check(GatewayMvcProperties.PREFIX + ".routes[" + i + "]", String.valueOf(route.getId()), route, registry,
					names);
		}
		gateway.getRoutesMap().forEach((id, route) -> check(GatewayMvcProperties.PREFIX + ".routes-map." + id,
				StringUtils.hasText(route.getId()) ? route.getId() : id, route, registry, names));
		return names;
	}

	private static void check(String property, String id, RouteProperties route, RateLimitRegistry registry,
			Set<String> names) {
		List<FilterProperties> filters = route.getFilters();
		for (int i = 0; i < filters.size(); i++) {
			for (String policy : policiesOf(filters.get(i))) {
				if (!registry.isConfigured(policy)) {
					throw new InvalidRateLimitConfigurationException(property + ".filters[" + i + "]",
							"gateway route '" + id + "' names rate limit policy '" + policy + "', which is not "
									+ "configured",
							"configure ratelimit.policies." + policy + ", or name a configured policy in the route's "
									+ "RateLimit filter",
							null);
				}
				names.add(policy);
			}
		}
	}

	/**
	 * The policies a route filter names, when it is ours: {@code RateLimit=a,b}, or {@code RateLimit} with the one
	 * argument {@code policies: a,b}; none for any other filter (Bucket4j's {@code RateLimit} takes other arguments).
	 */
	private static List<String> policiesOf(FilterProperties filter) {
		String name = filter.getName();
		Map<String, String> args = filter.getArgs();
		if (name == null || !"rateLimit".equals(StringUtils.uncapitalize(name))) {
			return List.of();
		}
		boolean shortcut = args.keySet().stream().anyMatch((key) -> key.startsWith(NameUtils.GENERATED_NAME_PREFIX));
		if (!shortcut && !args.keySet().equals(Set.of(POLICIES))) {
			return List.of();
		}
		return args.values().stream()
			.flatMap((value) -> Arrays.stream(StringUtils.commaDelimitedListToStringArray(value)))
			.map(String::trim)
			.toList();
	}

}
