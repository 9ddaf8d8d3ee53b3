package io.github.ratelimit.spring.web.gateway.webmvc;

import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.cloud.gateway.server.mvc.common.Shortcut;
import org.springframework.cloud.gateway.server.mvc.filter.SimpleFilterSupplier;
import org.springframework.util.Assert;
import org.springframework.util.StringUtils;
import org.springframework.web.servlet.function.HandlerFilterFunction;
import org.springframework.web.servlet.function.ServerResponse;

/**
 * Rate limits the routes of Spring Cloud Gateway's WebMVC server by configured policies
 * ({@code ratelimit.policies.<name>}), as the servlet filter applies policies with {@code paths}: the same key
 * strategies, plans and overrides, failure modes, headers and 429 or 503 problem responses, counted in the same metrics
 * and shown by the same endpoint. In the Java route DSL:
 * <pre class="code">
 * route("orders").GET("/orders/**", http())
 *     .before(uri("http://orders:8080"))
 *     .filter(rateLimit("orders"))
 *     .build();
 * </pre>
 * and in YAML routes as the {@code RateLimit} filter ({@code - RateLimit=orders}, or {@code name: RateLimit} with
 * {@code args: policies: orders,audit}). A route names one or more policies, applied in order; a policy that limits
 * only some {@code methods} applies to the route's requests of those. A name that is not a configured policy stops
 * start-up for a YAML route and fails the route's requests for a DSL route, naming the route and the policy.
 */
public final class RateLimitFilterFunctions {

	/** The names routes built in this JVM gave; see {@link #policiesNamedByRoutes()}. */
	private static final Set<String> NAMED_BY_ROUTES = ConcurrentHashMap.newKeySet();

	private RateLimitFilterFunctions() {
	}

	/**
	 * The filter that applies configured policies to a route's requests.
	 * @param policies the names of the policies, applied in order
	 * @return the filter
	 * @throws IllegalArgumentException when no policy or a blank name is given
	 */
	@Shortcut(value = "policies", type = Shortcut.Type.LIST)
	public static HandlerFilterFunction<ServerResponse, ServerResponse> rateLimit(String... policies) {
		Assert.isTrue(policies.length > 0, "A RateLimit route filter names at least one rate limit policy");
		List<String> names = List.of(policies).stream().map(String::trim).toList();
		Assert.isTrue(names.stream().allMatch(StringUtils::hasText),
				() -> "A RateLimit route filter names rate limit policies, not blanks: " + List.of(policies));
		NAMED_BY_ROUTES.addAll(names);
		return new RouteRateLimitFilter(names);
	}

	/**
	 * The names of the policies routes built so far in this JVM apply: start-up does not refuse a policy without
	 * {@code paths} as applied by nothing when a route of the Java DSL names it, since such routes cannot be read back
	 * from their router functions.
	 * @return the names
	 */
	public static Set<String> policiesNamedByRoutes() {
		return Collections.unmodifiableSet(NAMED_BY_ROUTES);
	}

	/**
	 * Makes {@code RateLimit} known to YAML routes ({@code spring.cloud.gateway.server.webmvc.routes[].filters}).
	 */
	public static class FilterSupplier extends SimpleFilterSupplier {

		/**
		 * Creates the supplier.
		 */
		public FilterSupplier() {
			super(RateLimitFilterFunctions.class);
		}

	}

}
