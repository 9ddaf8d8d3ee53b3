package io.github.ratelimit.spring;

import reactor.core.publisher.Mono;
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

}
