package io.github.ratelimit.spring.observation;

import java.util.function.Supplier;

import io.micrometer.observation.Observation;
import io.micrometer.observation.contextpropagation.ObservationThreadLocalAccessor;
import org.jspecify.annotations.Nullable;
import reactor.util.context.ContextView;

/**
 * Makes the observation a reactive pipeline carries in its Reactor context (a WebFlux request's) the parent of the
 * decisions started in a call, by opening its scope on the calling thread for the call's duration. Loaded only with
 * Reactor.
 */
public final class ReactorObservationParent {

	private ReactorObservationParent() {
	}

	/**
	 * The observation a Reactor context carries, to be the parent of the decisions of a subscription.
	 * @param context the subscription's context
	 * @return the observation, or {@code null} when it carries none
	 */
	public static @Nullable Observation of(ContextView context) {
		Observation parent = context.getOrDefault(ObservationThreadLocalAccessor.KEY, null);
		return (parent == null || parent.isNoop()) ? null : parent;
	}

	/**
	 * Makes a call within the scope of the context's observation, if it carries one.
	 * @param <T> the call's result
	 * @param context the Reactor context of the subscription that makes the call
	 * @param call the call, which starts its observations on this thread before it returns
	 * @return the call's result
	 */
	public static <T> T within(ContextView context, Supplier<T> call) {
		Observation parent = context.getOrDefault(ObservationThreadLocalAccessor.KEY, null);
		if (parent == null || parent.isNoop()) {
			return call.get();
		}
		try (Observation.Scope scope = parent.openScope()) {
			return call.get();
		}
	}

}
