package io.github.ratelimit.spring.web.reactive;

import java.util.List;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

import io.github.ratelimit.spring.RateLimitChain;
import io.github.ratelimit.spring.RateLimitEnforcer;
import io.github.ratelimit.spring.RateLimitOutcome;
import io.github.ratelimit.spring.ReactiveCurrentRequest;
import io.github.ratelimit.spring.web.RateLimitHeaders;
import io.micrometer.observation.Observation;
import io.micrometer.observation.contextpropagation.ObservationThreadLocalAccessor;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.util.context.ContextView;

import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;

/**
 * How the WebFlux adapters apply policies to an exchange: the exchange as the request view, its policies decided by
 * the one {@link RateLimitChain} (so no event loop waits for Redis; with a blocking client, such as Jedis, decisions
 * are moved to Reactor's bounded elastic scheduler), and the verdict back into the response: a refusal answered with
 * 429 (503 when a fail-closed policy cannot reach its backend), its headers and problem body, and the exchange never
 * proceeding; an admitted exchange carrying the headers of the policy with the fewest permits left, then proceeding,
 * in a task of its own on its connection's event loop ({@link ExchangeEventLoop}). {@link RateLimitWebFilter} applies
 * the policies whose {@code paths} match; the gateway filter those its route names; nothing else differs.
 */
public final class ExchangeDecisions {

	private final RateLimitChain chain;

	private final RateLimitHeaders headers;

	private final ReactiveProblemResponseWriter problems = new ReactiveProblemResponseWriter();

	/**
	 * Creates the decisions of an enforcer, answered with the configured headers.
	 * @param enforcer the enforcer
	 * @param headers the header writer
	 */
	public ExchangeDecisions(RateLimitEnforcer enforcer, RateLimitHeaders headers) {
		this.chain = new RateLimitChain(enforcer);
		this.headers = headers;
	}

	/**
	 * Applies policies to an exchange: refuses it, or writes the headers and proceeds.
	 * @param exchange the exchange
	 * @param steps the policies that apply, in order, not empty
	 * @param principal whether to resolve the exchange's principal before keying (behind authentication)
	 * @param proceed the rest of the exchange's processing, for an admitted exchange
	 * @return completion of the exchange
	 */
	public Mono<Void> apply(ServerWebExchange exchange, List<RateLimitChain.Step> steps, boolean principal,
			Supplier<Mono<Void>> proceed) {
		return request(exchange, principal).flatMap((limited) -> decide(limited, steps).flatMap((verdict) -> {
			RateLimitOutcome refusal = verdict.refusal();
			if (refusal != null) {
				return refuse(refusal, limited);
			}
			RateLimitOutcome shown = verdict.shown();
			if (shown != null) {
				this.headers.write(shown, exchange.getResponse().getHeaders()::set);
			}
			return proceed.get();
		}));
	}

	/**
	 * The verdict of policies for an exchange, for an adapter that answers it itself.
	 * @param exchange the exchange, or {@code null} for a caller that does not know it (the policies are then keyed
	 * by the steps alone, as outside a request)
	 * @param steps the policies that apply, in order
	 * @return the verdict
	 */
	public Mono<RateLimitChain.Verdict> verdict(@Nullable ServerWebExchange exchange,
			List<? extends RateLimitChain.Step> steps) {
		if (exchange == null) {
			Mono<RateLimitChain.Verdict> verdict = Mono.deferContextual((context) -> Mono
				.fromCompletionStage(this.chain.decide(null, steps, false,
						ReactiveCurrentRequest.continuation(RateLimitChain.mayWait(steps), this.chain.blocking()),
						observation(context))));
			return this.chain.blocking() ? verdict.subscribeOn(Schedulers.boundedElastic()) : verdict;
		}
		return request(exchange, true).flatMap((limited) -> decide(limited, steps));
	}

	private static Mono<WebFluxRateLimitRequest> request(ServerWebExchange exchange, boolean principal) {
		return principal
				? exchange.getPrincipal()
					.map((user) -> new WebFluxRateLimitRequest(exchange, user))
					.defaultIfEmpty(new WebFluxRateLimitRequest(exchange, null))
				: Mono.just(new WebFluxRateLimitRequest(exchange, null));
	}

	/**
	 * The request's verdict, decided as a child of the request's observation, each step that waited continuing on the
	 * exchange's event loop (on Reactor's bounded elastic scheduler with a blocking client), and the verdict in a task
	 * of its own on the event loop ({@link ExchangeEventLoop}).
	 */
	private Mono<RateLimitChain.Verdict> decide(WebFluxRateLimitRequest request,
			List<? extends RateLimitChain.Step> steps) {
		ServerWebExchange exchange = request.exchange();
		boolean blocking = this.chain.blocking();
		Executor continuation = blocking ? Schedulers.boundedElastic()::schedule : ExchangeEventLoop.executor(exchange);
		Mono<RateLimitChain.Verdict> verdict = Mono.deferContextual((context) -> Mono
			.fromCompletionStage(this.chain.decide(request, steps, true, continuation, observation(context))));
		return ExchangeEventLoop.continueOn(blocking ? verdict.subscribeOn(Schedulers.boundedElastic()) : verdict,
				exchange);
	}

	private Mono<Void> refuse(RateLimitOutcome outcome, WebFluxRateLimitRequest request) {
		ServerHttpResponse response = request.exchange().getResponse();
		this.headers.write(outcome, response.getHeaders()::set);
		return this.problems.write(outcome.refusal(request.uri()), response);
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
