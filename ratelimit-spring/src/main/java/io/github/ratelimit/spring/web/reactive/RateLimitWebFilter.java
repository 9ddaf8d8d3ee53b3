package io.github.ratelimit.spring.web.reactive;

import java.util.List;
import java.util.concurrent.Executor;

import io.github.ratelimit.spring.PolicyDefinition;
import io.github.ratelimit.spring.RateLimitChain;
import io.github.ratelimit.spring.RateLimitEnforcer;
import io.github.ratelimit.spring.RateLimitOutcome;
import io.github.ratelimit.spring.RateLimitRegistry;
import io.github.ratelimit.spring.ReactiveCurrentRequest;
import io.github.ratelimit.spring.web.FilterPolicies;
import io.github.ratelimit.spring.web.RateLimitHeaders;
import io.micrometer.observation.Observation;
import io.micrometer.observation.contextpropagation.ObservationThreadLocalAccessor;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.util.context.ContextView;

import org.springframework.core.Ordered;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.filter.reactive.ServerWebExchangeContextFilter;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebExceptionHandler;
import org.springframework.web.server.WebFilterChain;

/**
 * Applies configured policies with {@code paths} to the WebFlux requests they match, as the servlet filter does: a
 * request refused by any of them is answered with 429 (503 when a fail-closed policy cannot reach its backend) and
 * never reaches the application; an admitted one carries the headers of the policy with the fewest permits left;
 * shadow policies never change the response. The request's policies are decided by the one
 * {@link RateLimitChain}, so no event loop waits for Redis (with a blocking client, such as Jedis, decisions are moved
 * to Reactor's bounded elastic scheduler), and the exchange continues after its verdict in a task of its own on its
 * connection's event loop ({@link ExchangeEventLoop}).
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

	private final RateLimitChain chain;

	private final RateLimitHeaders headers;

	private final ReactiveProblemResponseWriter problems;

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
		this.chain = new RateLimitChain(enforcer);
		this.headers = headers;
		this.problems = new ReactiveProblemResponseWriter();
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
		Mono<WebFluxRateLimitRequest> request = this.afterAuthentication
				? exchange.getPrincipal()
					.map((principal) -> new WebFluxRateLimitRequest(exchange, principal))
					.defaultIfEmpty(new WebFluxRateLimitRequest(exchange, null))
				: Mono.just(new WebFluxRateLimitRequest(exchange, null));
		return request.flatMap((limited) -> decide(limited, applicable).flatMap((verdict) -> {
			RateLimitOutcome refusal = verdict.refusal();
			if (refusal != null) {
				return refuse(refusal, limited);
			}
			RateLimitOutcome shown = verdict.shown();
			if (shown != null) {
				this.headers.write(shown, exchange.getResponse().getHeaders()::set);
			}
			return proceed(exchange, chain);
		}));
	}

	private List<RateLimitChain.Step> applicable(ServerWebExchange exchange) {
		if (this.policies.isEmpty()) {
			return List.of();
		}
		return this.policies.stepsFor(exchange.getRequest().getMethod().name(),
				exchange.getRequest().getPath().pathWithinApplication());
	}

	/**
	 * The request's verdict, decided as a child of the request's observation, each step that waited continuing on the
	 * exchange's event loop (on Reactor's bounded elastic scheduler with a blocking client), and the verdict in a task
	 * of its own on the event loop ({@link ExchangeEventLoop}).
	 */
	private Mono<RateLimitChain.Verdict> decide(WebFluxRateLimitRequest request, List<RateLimitChain.Step> applicable) {
		ServerWebExchange exchange = request.exchange();
		boolean blocking = this.chain.blocking();
		Executor continuation = blocking ? Schedulers.boundedElastic()::schedule : ExchangeEventLoop.executor(exchange);
		Mono<RateLimitChain.Verdict> verdict = Mono.deferContextual((context) -> Mono.fromCompletionStage(this.chain
			.decide(request, applicable, true, continuation, observation(context))));
		return ExchangeEventLoop.continueOn(blocking ? verdict.subscribeOn(Schedulers.boundedElastic()) : verdict,
				exchange);
	}

	private Mono<Void> refuse(RateLimitOutcome outcome, WebFluxRateLimitRequest request) {
		ServerHttpResponse response = request.exchange().getResponse();
		this.headers.write(outcome, response.getHeaders()::set);
		return this.problems.write(outcome.refusal(request.uri()), response);
	}

	private static Mono<Void> proceed(ServerWebExchange exchange, WebFilterChain chain) {
		return chain.filter(exchange)
			.contextWrite((context) -> context.put(ServerWebExchangeContextFilter.EXCHANGE_CONTEXT_ATTRIBUTE, exchange));
	}

	/**
	 * The observation the exchange's Reactor context carries (the server's request observation), to be the parent of
	 * its decisions.
	 */
	private static @Nullable Observation observation(ContextView context) {
		Observation parent = context.getOrDefault(ObservationThreadLocalAccessor.KEY, null);
		return (parent == null || parent.isNoop()) ? null : parent;
	}

}
