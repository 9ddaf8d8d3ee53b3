package io.github.ratelimit.spring.annotation;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import io.github.ratelimit.spring.CurrentRequest;
import io.github.ratelimit.spring.ReactiveCurrentRequest;
import io.github.ratelimit.spring.annotation.RateLimitedPolicies.AnnotatedPolicy;
import io.micrometer.observation.Observation;
import io.micrometer.observation.contextpropagation.ObservationThreadLocalAccessor;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.util.context.ContextView;

import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.aop.interceptor.ExposeInvocationInterceptor;
import org.springframework.core.ReactiveAdapter;
import org.springframework.core.ReactiveAdapterRegistry;

/**
 * Rate limits calls of methods that return a {@code Mono}, a {@code Flux} or another type Spring's
 * {@link ReactiveAdapterRegistry} adapts: the call returns at once a publisher of the same type that decides on each
 * subscription (one subscription, one call) and only then invokes the method, through the rest of the advice chain,
 * and subscribes to what it returns. A refusal is an error signal. Inside a WebFlux request, the request is found in
 * the subscriber's context ({@link ReactiveCurrentRequest}), and the call continues once decided where the request
 * says (a WebFlux request: on its connection's event loop). Decisions never wait for Redis; with a blocking client
 * (Jedis) they are made on Reactor's bounded elastic scheduler. Loaded only when Reactor is on the classpath.
 */
final class ReactiveRateLimitedCalls {

	private static final Log logger = LogFactory.getLog(RateLimitedInterceptor.class);

	private final ReactiveAdapterRegistry adapters = ReactiveAdapterRegistry.getSharedInstance();

	private final Set<Method> blockingEventLoops = ConcurrentHashMap.newKeySet();

	private final RateLimitedEnforcement enforcement;

	private final ReactiveCurrentRequest currentRequest;

	ReactiveRateLimitedCalls(RateLimitedEnforcement enforcement, ReactiveCurrentRequest currentRequest) {
		this.enforcement = enforcement;
		this.currentRequest = currentRequest;
	}

	/**
	 * The adapter of a method's reactive return type.
	 * @return the adapter, or {@code null} when the method does not return a reactive type
	 */
	@Nullable ReactiveAdapter adapter(Method method) {
		return this.adapters.getAdapter(method.getReturnType());
	}

	/**
	 * Warns, once per method, when a method that returns neither a reactive type nor a future is called on a
	 * non-blocking thread (a Reactor Netty event loop, a parallel scheduler): its decision is made by waiting for the
	 * backend on that thread, which nothing else can then use.
	 * @param method the method about to be decided by waiting
	 */
	void warnIfNonBlockingThread(Method method) {
		if (Schedulers.isInNonBlockingThread() && this.blockingEventLoops.add(method)) {
			logger.warn("@RateLimited " + method.getDeclaringClass().getName() + "." + method.getName()
					+ " returns neither a reactive type nor a future, so its decision waits for the rate limit backend, "
					+ "and it was called on a non-blocking thread (" + Thread.currentThread().getName() + "), which "
					+ "waits with it: return a Mono, a Flux or a CompletableFuture to be decided without blocking "
					+ "(logged once per method)");
		}
	}

	Object invoke(ProxyMethodInvocation invocation, List<AnnotatedPolicy> limits, ReactiveAdapter adapter) {
		@Nullable Object[] args = invocation.getArguments();
		Mono<Void> decided = Mono.deferContextual(
				(context) -> this.currentRequest.continueOn(decide(limits, args, context), context));
		Publisher<?> limited = adapter.isMultiValue() ? decided.thenMany(Flux.defer(() -> proceed(invocation, adapter)))
				: decided.then(Mono.defer(() -> Mono.from(proceed(invocation, adapter))));
		return adapter.fromPublisher(limited);
	}

	/**
	 * Decides one call, for the request its subscriber serves, on a thread that may block when the backend's client
	 * does.
	 */
	private Mono<Void> decide(List<AnnotatedPolicy> limits, @Nullable Object[] args, ContextView context) {
		Mono<Void> decided = this.currentRequest.request(context)
			.defaultIfEmpty(CurrentRequest.NONE)
			.flatMap((current) -> Mono.fromCompletionStage(withinObservation(context,
					() -> this.enforcement.enforceAsync(limits, args, current, ReactiveCurrentRequest
						.continuation(this.enforcement.mayWait(limits), this.enforcement.blocking())))));
		return this.enforcement.blocking() ? decided.subscribeOn(Schedulers.boundedElastic()) : decided;
	}

	/**
	 * Invokes the method for one subscription, through a clone of the invocation so that the advice after this one
	 * runs for every subscription, with the clone exposed to it (as {@link ExposeInvocationInterceptor} does).
	 */
	private static Publisher<?> proceed(ProxyMethodInvocation invocation, ReactiveAdapter adapter) {
		try {
			return adapter.toPublisher(ExposeInvocationInterceptor.INSTANCE.invoke(invocation.invocableClone()));
		}
		catch (Throwable ex) {
			return Mono.error(ex);
		}
	}

	/**
	 * Makes a call within the scope of the observation the subscription's Reactor context carries (a WebFlux
	 * request's), if any, so that the decisions the call starts on this thread are observed under it.
	 */
	private static <T> T withinObservation(ContextView context, Supplier<T> call) {
		Observation parent = context.getOrDefault(ObservationThreadLocalAccessor.KEY, null);
		if (parent == null || parent.isNoop()) {
			return call.get();
		}
		try (Observation.Scope scope = parent.openScope()) {
			return call.get();
		}
	}

}
