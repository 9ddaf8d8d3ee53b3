package io.github.ratelimit.spring;

import java.util.concurrent.Executor;

import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.util.context.ContextView;

/**
 * The web request a reactive {@code @RateLimited} method's subscriber serves, found in the subscriber's Reactor
 * context, for methods that return a {@code Mono}, a {@code Flux} or another reactive type. The WebFlux stack
 * provides its own; elsewhere there is none. Used only where Reactor is on the classpath.
 */
@FunctionalInterface
public interface ReactiveCurrentRequest {

	/** No web request: for applications without WebFlux. */
	ReactiveCurrentRequest NONE = (context) -> Mono.empty();

	/**
	 * The request a subscriber serves, with its authenticated user resolved, and the setter of its response's
	 * headers.
	 * @param context the subscriber's context
	 * @return the request, or an empty {@code Mono} outside a web request
	 */
	Mono<CurrentRequest> request(ContextView context);

	/**
	 * Where a call continues once decided: by default, where its decision completes. The WebFlux request continues
	 * in a task of its own on its connection's event loop.
	 * @param <T> the decision's type
	 * @param decision the decision
	 * @param context the subscriber's context
	 * @return the decision, continuing there
	 */
	default <T> Mono<T> continueOn(Mono<T> decision, ContextView context) {
		return decision;
	}

	/**
	 * Where a reactive chain outside a web request continues: where each stage completes (the backend client's event
	 * loop), unless one of its policies may wait for a permit; then on Reactor's parallel scheduler (bounded elastic
	 * when deciding blocks, with Jedis), so that no call after a wait, nor the method, runs on the waiting callers'
	 * one timer thread.
	 * @param mayWait whether a policy of the chain may wait ({@link RateLimitChain#mayWait})
	 * @param blocking whether deciding blocks ({@link RateLimitChain#blocking()})
	 * @return the executor of the chain's continuations
	 */
	static Executor continuation(boolean mayWait, boolean blocking) {
		if (!mayWait) {
			return Runnable::run;
		}
		return blocking ? Schedulers.boundedElastic()::schedule : Schedulers.parallel()::schedule;
	}

}
