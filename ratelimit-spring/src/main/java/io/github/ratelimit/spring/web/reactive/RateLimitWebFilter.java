package io.github.ratelimit.spring.web.reactive;

import java.util.List;

import io.github.ratelimit.spring.RateLimitChain;
import io.github.ratelimit.spring.RateLimitEnforcer;
import io.github.ratelimit.spring.RateLimitRegistry;
import io.github.ratelimit.spring.ReactiveCurrentRequest;
import io.github.ratelimit.spring.web.FilterPolicies;
import io.github.ratelimit.spring.web.RateLimitHeaders;
import reactor.core.publisher.Mono;

import org.springframework.core.Ordered;
import org.springframework.web.filter.reactive.ServerWebExchangeContextFilter;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebExceptionHandler;
import org.springframework.web.server.WebFilterChain;

/**
 * Applies configured policies with {@code paths} to the WebFlux requests they match, as the servlet filter does: a
 * request refused by any of them is answered with 429 (503 when a fail-closed policy cannot reach its backend) and
 * never reaches the application; an admitted one carries the headers of the policy with the fewest permits left;
 * shadow policies never change the response. The request's policies are decided, and the verdict answered, by
 * {@link ExchangeDecisions}, as the gateway filter's are.
 * <p>
 * The auto-configuration registers two filters: one ordered before Spring Security's {@code WebFilterChainProxy}
 * ({@link #beforeAuthentication}), one after it ({@link #afterAuthentication}), which resolves the exchange's principal before keying its policies.
 * They share the exchange's {@link io.github.ratelimit.spring.RequestRateLimits}. Each puts the exchange in the
 * Reactor context as Spring's {@link ServerWebExchangeContextFilter} does, so reactive {@code @RateLimited} methods
 * find the request they serve.
 */
public class RateLimitWebFilter implements WebFilter, Ordered {

	private final FilterPolicies policies;

	private final boolean afterAuthentication;

	private final ExchangeDecisions decisions;

	private final int order;

	/**
	 * The filter to order in front of authentication (Spring Security's web filter), so that requests it refuses are
	 * counted too: it applies the policies with paths whose keys need no user, as the registry has them at each
	 * request, so that a configuration refresh ({@link RateLimitRegistry#reconfigure}) applies to the next request;
	 * each request is decided by one set.
	 * @param registry the policies
	 * @param order its order among web filters
	 * @param enforcer the enforcer
	 * @param headers the header writer
	 * @return the filter
	 */
	public static RateLimitWebFilter beforeAuthentication(RateLimitRegistry registry, int order,
			RateLimitEnforcer enforcer, RateLimitHeaders headers) {
		return new RateLimitWebFilter(registry, false, order, enforcer, headers);
	}

	/**
	 * The filter to order behind authentication: it applies the policies with paths whose key or plan resolver needs
	 * the user ({@code principal}), resolving the exchange's principal before keying, as
	 * {@link #beforeAuthentication} does the others.
	 * @param registry the policies
	 * @param order its order among web filters
	 * @param enforcer the enforcer
	 * @param headers the header writer
	 * @return the filter
	 */
	public static RateLimitWebFilter afterAuthentication(RateLimitRegistry registry, int order,
			RateLimitEnforcer enforcer, RateLimitHeaders headers) {
		return new RateLimitWebFilter(registry, true, order, enforcer, headers);
	}

	private RateLimitWebFilter(RateLimitRegistry registry, boolean afterAuthentication, int order,
			RateLimitEnforcer enforcer, RateLimitHeaders headers) {
		this.policies = new FilterPolicies(() -> registry.filterPolicies(afterAuthentication));
		this.afterAuthentication = afterAuthentication;
		this.order = order;
		this.decisions = new ExchangeDecisions(enforcer, headers);
	}

	/**
	 * The web request a reactive {@code @RateLimited} method's subscriber serves: the exchange in its Reactor
	 * context, its principal resolved without blocking.
	 * @return the current request of WebFlux applications
	 */
	public static ReactiveCurrentRequest currentRequest() {
		return new WebFluxCurrentRequest();
	}

	/**
	 * The handler that renders {@code @RateLimited} refusals reaching WebFlux's exception handling outside a
	 * controller (a functional endpoint, a web filter) as this filter answers, ordered before Spring Boot's error
	 * handler ({@code -2}).
	 * @param headers the header writer
	 * @return the exception handler
	 */
	public static WebExceptionHandler exceptionHandler(RateLimitHeaders headers) {
		return new RateLimitWebExceptionHandler(headers, new ReactiveProblemResponseWriter());
	}

	@Override
	public int getOrder() {
		return this.order;
	}

	@Override
	public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
		List<RateLimitChain.Step> applicable = applicable(exchange);
		if (applicable.isEmpty()) {
			return proceed(exchange, chain);
		}
		return this.decisions.apply(exchange, applicable, this.afterAuthentication, () -> proceed(exchange, chain));
	}

	private List<RateLimitChain.Step> applicable(ServerWebExchange exchange) {
		if (this.policies.isEmpty()) {
			return List.of();
		}
		return this.policies.stepsFor(exchange.getRequest().getMethod().name(),
				exchange.getRequest().getPath().pathWithinApplication());
	}

	private static Mono<Void> proceed(ServerWebExchange exchange, WebFilterChain chain) {
		return chain.filter(exchange)
			.contextWrite((context) -> context.put(ServerWebExchangeContextFilter.EXCHANGE_CONTEXT_ATTRIBUTE, exchange));
	}

}
