package io.github.ratelimit.spring.annotation;

import java.lang.reflect.Method;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.BiConsumer;

import io.github.ratelimit.spring.CurrentRequest;
import io.github.ratelimit.spring.RateLimitRequest;
import io.github.ratelimit.spring.annotation.RateLimitedPolicies.AnnotatedPolicy;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.interceptor.ExposeInvocationInterceptor;

/**
 * Rate limits calls of methods that return a {@link CompletableFuture} or {@link CompletionStage}: the decision
 * precedes the work without blocking the caller. The call returns at once a future that completes with the refusal,
 * or with the method's own result once it was admitted and invoked. A decision complete at once (the deny cache, an
 * open breaker, the in-memory backend) invokes the method on the caller's thread and returns its own future; any
 * other continues on the executor, never on the Redis client's event loop: the method, and a refusal's completion.
 * With a blocking Redis client (Jedis), the whole call, decision included, runs on the executor.
 */
final class RateLimitedFutures {

	private final RateLimitedEnforcement enforcement;

	private final Executor executor;

	RateLimitedFutures(RateLimitedEnforcement enforcement, Executor executor) {
		this.enforcement = enforcement;
		this.executor = executor;
	}

	/**
	 * Whether a method returns a future this class can stand in for.
	 */
	static boolean returnsFuture(Method method) {
		Class<?> type = method.getReturnType();
		return CompletionStage.class.isAssignableFrom(type) && type.isAssignableFrom(CompletableFuture.class);
	}

	@Nullable Object invoke(MethodInvocation invocation, List<AnnotatedPolicy> limits, CurrentRequest currentRequest)
			throws Throwable {
		CurrentRequest current = new CapturedRequest(currentRequest.request(), currentRequest.responseHeaders());
		@Nullable Object[] args = invocation.getArguments();
		CompletableFuture<Object> result = new CompletableFuture<>();
		if (this.enforcement.blocking()) {
			continueOnExecutor(result, () -> {
				this.enforcement.enforce(limits, args, current);
				proceed(invocation, result);
			});
			return result;
		}
		CompletableFuture<Void> decided = this.enforcement.enforceAsync(limits, args, current, this.executor);
		if (decided.isDone()) {
			Throwable refusal = failure(decided);
			return (refusal != null) ? CompletableFuture.failedFuture(refusal) : invocation.proceed();
		}
		// a caller that cancels the call (or times it out) before it is decided gives up its place in a line of waits
		result.whenComplete((value, error) -> decided.cancel(false));
		decided.whenComplete((admitted, error) -> continueOnExecutor(result, () -> {
			if (error != null) {
				result.completeExceptionally(unwrap(error));
			}
			else {
				proceed(invocation, result);
			}
		}));
		return result;
	}

	/**
	 * Runs the rest of a call on the executor, unless the caller cancelled it meanwhile.
	 */
	private void continueOnExecutor(CompletableFuture<Object> result, Continuation continuation) {
		try {
			this.executor.execute(() -> {
				if (result.isDone()) {
					return;
				}
				try {
					continuation.run();
				}
				catch (Throwable ex) {
					result.completeExceptionally(ex);
				}
			});
		}
		catch (RuntimeException ex) {
			result.completeExceptionally(ex);
		}
	}

	/**
	 * Invokes the method, on a thread other than the caller's, with the invocation exposed to later advice (as
	 * {@link ExposeInvocationInterceptor} did on the caller's thread), and completes the result with its future's.
	 */
	private static void proceed(MethodInvocation invocation, CompletableFuture<Object> result) throws Throwable {
		Object returned = ExposeInvocationInterceptor.INSTANCE.invoke(invocation);
		if (returned == null) {
			result.complete(null);
			return;
		}
		((CompletionStage<?>) returned).whenComplete((value, error) -> {
			if (error != null) {
				result.completeExceptionally(error);
			}
			else {
				result.complete(value);
			}
		});
	}

	private static @Nullable Throwable failure(CompletableFuture<Void> done) {
		Throwable error = done.handle((admitted, failure) -> failure).join();
		return (error != null) ? unwrap(error) : null;
	}

	private static Throwable unwrap(Throwable error) {
		return (error instanceof CompletionException && error.getCause() != null) ? error.getCause() : error;
	}

	/**
	 * The rest of a call.
	 */
	@FunctionalInterface
	private interface Continuation {

		void run() throws Throwable;

	}

	/**
	 * The web request a call was made in, as seen on the caller's thread, for the decision on other threads.
	 */
	private record CapturedRequest(@Nullable RateLimitRequest request,
			@Nullable BiConsumer<String, String> responseHeaders) implements CurrentRequest {
	}

}
