package io.github.ratelimit.spring.web.gateway.webflux;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.github.ratelimit.spring.PolicyDefinition;
import io.github.ratelimit.spring.RateLimitChain;
import io.github.ratelimit.spring.RateLimitEnforcer;
import io.github.ratelimit.spring.RateLimitRegistry;
import io.github.ratelimit.spring.web.RateLimitHeaders;
import io.github.ratelimit.spring.web.reactive.ExchangeDecisions;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

import org.springframework.cloud.gateway.filter.GatewayFilter;
import org.springframework.cloud.gateway.filter.GatewayFilterChain;
import org.springframework.cloud.gateway.filter.factory.AbstractGatewayFilterFactory;
import org.springframework.cloud.gateway.support.GatewayToStringStyler;
import org.springframework.cloud.gateway.support.HasRouteId;
import org.springframework.web.server.ServerWebExchange;

/**
 * The {@code RateLimit} route filter of Spring Cloud Gateway's WebFlux server: applies the configured policies a
 * route names ({@code - RateLimit=orders}, several as {@code - RateLimit=orders,orders-ip}) to every request the
 * route matches, exactly as the WebFlux filter applies policies with {@code paths} ({@link ExchangeDecisions}): the
 * policies' key strategies over the exchange, plans, overrides, leasing, failure modes, circuit breaker, deny cache,
 * headers, {@code Retry-After}, the problem body, metrics and the endpoint. A refused request is answered by the
 * filter and never routed. The route's {@code paths}, {@code exclude-paths} and {@code methods} are the filter's
 * business, not the route's: a named policy applies to every request of the route. The exchange is keyed as the
 * route's earlier filters left it, so put {@code RateLimit} first.
 * <p>
 * In the Java DSL, {@code .filters(f -> f.filter(rateLimit.policies("orders")))}, with this factory injected. A
 * policy that is not configured fails the route when it is built, naming the route (when known) and the policy; the
 * names are read from the registry at each request, so a configuration refresh applies to the next request.
 */
public class RateLimitGatewayFilterFactory extends AbstractGatewayFilterFactory<RateLimitGatewayFilterFactory.Config> {

	/** The name of the {@link Config#getPolicies() policies} argument. */
	public static final String POLICIES_KEY = "policies";

	private final RateLimitRegistry registry;

	private final ExchangeDecisions decisions;

	private final Set<String> applied = ConcurrentHashMap.newKeySet();

	/**
	 * Creates the factory.
	 * @param registry the policies
	 * @param enforcer the enforcer
	 * @param headers the header writer
	 */
	public RateLimitGatewayFilterFactory(RateLimitRegistry registry, RateLimitEnforcer enforcer,
			RateLimitHeaders headers) {
		super(Config.class);
		this.registry = registry;
		this.decisions = new ExchangeDecisions(enforcer, headers);
	}

	@Override
	public ShortcutType shortcutType() {
		return ShortcutType.GATHER_LIST;
	}

	@Override
	public List<String> shortcutFieldOrder() {
		return List.of(POLICIES_KEY);
	}

	/**
	 * The filter applying policies, for a route of the Java DSL.
	 * @param policies the names of configured policies, applied in this order
	 * @return the filter
	 * @throws IllegalArgumentException when there is none, or one is not configured
	 */
	public GatewayFilter policies(String... policies) {
		return apply(new Config().setPolicies(Arrays.asList(policies)));
	}

	@Override
	public GatewayFilter apply(Config config) {
		List<String> names = List.copyOf(config.getPolicies());
		String route = (config.getRouteId() != null) ? "Route '" + config.getRouteId() + "'" : "A route";
		if (names.isEmpty()) {
			throw new IllegalArgumentException(route + " has a RateLimit filter that names no policy: name the "
					+ "configured policies it applies, as in RateLimit=orders");
		}
		for (String name : names) {
			if (!this.registry.isConfigured(name)) {
				throw new IllegalArgumentException(route + " names rate limit policy '" + name + "' in its RateLimit "
						+ "filter, and no such policy is configured: configure ratelimit.policies." + name
						+ " or correct the name");
			}
		}
		this.applied.addAll(names);
		return new RouteFilter(names);
	}

	/**
	 * The names of the policies routes built so far apply (routes of the Java DSL are built with their
	 * {@code RouteLocator} bean), so that start-up does not refuse a policy without {@code paths} as applied by
	 * nothing.
	 * @return the names
	 */
	public Set<String> appliedPolicies() {
		return Set.copyOf(this.applied);
	}

	/** The filter of one route: its policies' steps, looked up again after a refresh. */
	private final class RouteFilter implements GatewayFilter {

		private final List<String> names;

		private volatile Steps steps = new Steps(new Object(), List.of());

		RouteFilter(List<String> names) {
			this.names = names;
		}

		@Override
		public Mono<Void> filter(ServerWebExchange exchange, GatewayFilterChain chain) {
			return RateLimitGatewayFilterFactory.this.decisions.apply(exchange, steps(), true,
					() -> chain.filter(exchange));
		}

		private List<RateLimitChain.Step> steps() {
			Object configuration = RateLimitGatewayFilterFactory.this.registry.configuration();
			Steps current = this.steps;
			if (current.configuration() != configuration) {
				List<RateLimitChain.Step> steps = new ArrayList<>(this.names.size());
				for (String name : this.names) {
					PolicyDefinition policy = RateLimitGatewayFilterFactory.this.registry.find(name)
						.filter((found) -> RateLimitGatewayFilterFactory.this.registry.isConfigured(name))
						.orElseThrow(() -> new IllegalStateException("Rate limit policy '" + name + "' of a "
								+ "RateLimit route filter is no longer configured"));
					steps.add(RateLimitChain.Step.of(policy));
				}
				current = new Steps(configuration, List.copyOf(steps));
				this.steps = current;
			}
			return current.steps();
		}

		@Override
		public String toString() {
			return GatewayToStringStyler.filterToStringCreator(RateLimitGatewayFilterFactory.this)
				.append(POLICIES_KEY, this.names)
				.toString();
		}

	}

	/** The steps of a route's policies in one set of configured policies. */
	private record Steps(Object configuration, List<RateLimitChain.Step> steps) {
	}

	/**
	 * The filter's arguments.
	 */
	public static class Config implements HasRouteId {

		private List<String> policies = new ArrayList<>();

		private @Nullable String routeId;

		/**
		 * The names of the configured policies the route applies, in order.
		 * @return the names
		 */
		public List<String> getPolicies() {
			return this.policies;
		}

		/**
		 * Sets the names of the configured policies the route applies.
		 * @param policies the names, in order
		 * @return this
		 */
		public Config setPolicies(List<String> policies) {
			this.policies = new ArrayList<>(policies);
			return this;
		}

		@Override
		public void setRouteId(String routeId) {
			this.routeId = routeId;
		}

		@Override
		public @Nullable String getRouteId() {
			return this.routeId;
		}

	}

}
