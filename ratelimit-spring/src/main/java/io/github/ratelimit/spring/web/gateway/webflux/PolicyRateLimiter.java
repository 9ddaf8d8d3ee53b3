package io.github.ratelimit.spring.web.gateway.webflux;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.github.ratelimit.spring.PolicyDefinition;
import io.github.ratelimit.spring.PolicyPlan;
import io.github.ratelimit.spring.RateLimitChain;
import io.github.ratelimit.spring.RateLimitEnforcer;
import io.github.ratelimit.spring.RateLimitOutcome;
import io.github.ratelimit.spring.RateLimitRegistry;
import io.github.ratelimit.spring.RateLimitRequest;
import io.github.ratelimit.spring.web.RateLimitHeaders;
import io.github.ratelimit.spring.web.reactive.ExchangeDecisions;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

import org.springframework.cloud.gateway.event.FilterArgsEvent;
import org.springframework.cloud.gateway.filter.ratelimit.AbstractRateLimiter;
import org.springframework.cloud.gateway.support.ConfigurationService;
import org.springframework.web.filter.reactive.ServerWebExchangeContextFilter;

/**
 * Spring Cloud Gateway's own {@code RateLimiter} contract over a configured policy, so that a route written for the
 * gateway's {@code RequestRateLimiter} filter switches to a policy by naming this bean
 * ({@code rate-limiter: "#{@policyRateLimiter}"}) and the policy ({@code policy-rate-limiter.policy: orders}); the
 * route's {@code KeyResolver} gives the client's key, which the policy's key strategy does not replace. Decided by
 * the same chain as every adapter (plans, overrides, leasing, failure modes, breaker, deny cache, metrics, endpoint),
 * as the request the exchange in the Reactor context is (the WebFlux filter puts it there), else outside a request.
 * <p>
 * The contract carries a yes or no and headers: the gateway's filter copies the headers (the configured rate limit
 * headers and a refusal's {@code Retry-After}) and answers a refusal with its own status (429 unless the route says
 * otherwise) and no body. So a fail-closed refusal is that status, not 503, and there is no problem body: the
 * {@code RateLimit} route filter ({@link RateLimitGatewayFilterFactory}) answers as the WebFlux filter does.
 */
public class PolicyRateLimiter extends AbstractRateLimiter<PolicyRateLimiter.Config> {

	/** The prefix of a route's arguments for this limiter, as {@code policy-rate-limiter.policy}. */
	public static final String CONFIGURATION_PROPERTY_NAME = "policy-rate-limiter";

	private final RateLimitRegistry registry;

	private final RateLimitHeaders headers;

	private final ExchangeDecisions decisions;

	/**
	 * Creates the limiter.
	 * @param registry the policies
	 * @param enforcer the enforcer
	 * @param headers the header writer
	 * @param configurationService the gateway's binder of route arguments
	 */
	public PolicyRateLimiter(RateLimitRegistry registry, RateLimitEnforcer enforcer, RateLimitHeaders headers,
			ConfigurationService configurationService) {
		super(Config.class, CONFIGURATION_PROPERTY_NAME, configurationService);
		this.registry = registry;
		this.headers = headers;
		this.decisions = new ExchangeDecisions(enforcer, headers);
	}

	/**
	 * Binds a route's arguments, and fails the route when the policy it names is not configured.
	 */
	@Override
	public void onApplicationEvent(FilterArgsEvent event) {
		super.onApplicationEvent(event);
		Config config = getConfig().get(event.getRouteId());
		if (config != null) {
			policy(event.getRouteId(), config);
		}
	}

	@Override
	public Mono<Response> isAllowed(String routeId, String id) {
		PolicyDefinition policy;
		try {
			policy = policy(routeId, getConfig().get(routeId));
		}
		catch (IllegalArgumentException ex) {
			return Mono.error(ex);
		}
		List<RateLimitChain.Step> steps = List.of(new ClientStep(policy, id));
		return Mono.deferContextual((context) -> this.decisions
			.verdict(ServerWebExchangeContextFilter.getExchange(context).orElse(null), steps)
			.map(this::response));
	}

	private PolicyDefinition policy(String routeId, @Nullable Config config) {
		String name = (config != null) ? config.getPolicy() : null;
		if (name == null || name.isBlank()) {
			throw new IllegalArgumentException("Route '" + routeId + "' uses the policy rate limiter without naming a "
					+ "policy: give its RequestRateLimiter filter the argument " + CONFIGURATION_PROPERTY_NAME
					+ ".policy");
		}
		if (!this.registry.isConfigured(name)) {
			throw new IllegalArgumentException("Route '" + routeId + "' names rate limit policy '" + name + "' in "
					+ CONFIGURATION_PROPERTY_NAME + ".policy, and no such policy is configured: configure "
					+ "ratelimit.policies." + name + " or correct the name");
		}
		return this.registry.find(name).orElseThrow();
	}

	private Response response(RateLimitChain.Verdict verdict) {
		Map<String, String> headers = new LinkedHashMap<>();
		RateLimitOutcome refusal = verdict.refusal();
		if (refusal != null) {
			this.headers.write(refusal, headers::put);
			refusal.refusal(null).getHeaders().forEach((name, values) -> headers.put(name, values.get(0)));
			return new Response(false, headers);
		}
		RateLimitOutcome shown = verdict.shown();
		if (shown != null) {
			this.headers.write(shown, headers::put);
		}
		return new Response(true, headers);
	}

	/** A policy keyed by the route's {@code KeyResolver}. */
	private record ClientStep(PolicyDefinition policy, String key) implements RateLimitChain.Step {

		@Override
		public CompletionStage<String> key(@Nullable RateLimitRequest request) {
			return CompletableFuture.completedFuture(this.key);
		}

		@Override
		public long permits(PolicyPlan plan, @Nullable RateLimitRequest request) {
			return plan.cost();
		}

	}

	/**
	 * A route's arguments for this limiter.
	 */
	public static class Config {

		private @Nullable String policy;

		/**
		 * The name of the configured policy the route applies.
		 * @return the name
		 */
		public @Nullable String getPolicy() {
			return this.policy;
		}

		/**
		 * Sets the name of the configured policy the route applies.
		 * @param policy the name
		 * @return this
		 */
		public Config setPolicy(String policy) {
			this.policy = policy;
			return this;
		}

	}

}
