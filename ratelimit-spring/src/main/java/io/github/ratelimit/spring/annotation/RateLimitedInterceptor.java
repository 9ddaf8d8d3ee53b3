package io.github.ratelimit.spring.annotation;

import java.lang.reflect.Method;
import java.util.List;
import java.util.concurrent.Executor;

import io.github.ratelimit.spring.CurrentRequest;
import io.github.ratelimit.spring.IpKeys;
import io.github.ratelimit.spring.RateLimitEnforcer;
import io.github.ratelimit.spring.RateLimitedCostException;
import io.github.ratelimit.spring.ReactiveCurrentRequest;
import io.github.ratelimit.spring.annotation.RateLimitedPolicies.AnnotatedPolicy;
import io.github.ratelimit.spring.web.RateLimitHeaders;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.core.ReactiveAdapter;
import org.springframework.util.ClassUtils;

/**
 * Enforces the policies of a {@link RateLimited} method: each policy once, the first refusal ending the call. Inside a
 * web request, a policy the filter already charged for the same client is not charged again, and the response shows
 * the headers of the outcome that binds most, whichever path decided it.
 * <p>
 * When it is decided depends on what the method returns. A method returning a {@code Mono}, a {@code Flux} or another
 * reactive type (when Reactor is on the classpath) is decided on each subscription, and a refusal is an error signal;
 * one returning a {@code CompletableFuture} or {@code CompletionStage} is decided without blocking the caller, and a
 * refusal completes the returned future; any other is decided before the call proceeds, and a refusal is thrown.
 * <p>
 * A key expression that yields nothing or fails counts the call under the client's IP address inside a web request
 * (as a key strategy that finds nothing does), else under one global key, and is logged. A cost expression that does
 * not come to a whole number of at least 1 refuses the call with {@link RateLimitedCostException} (400).
 */
final class RateLimitedInterceptor implements MethodInterceptor {

	private static final boolean reactorPresent = ClassUtils.isPresent("reactor.core.publisher.Mono",
			RateLimitedInterceptor.class.getClassLoader());

	private final RateLimitedPolicies policies;

	private final CurrentRequest currentRequest;

	private final RateLimitedEnforcement enforcement;

	private final RateLimitedFutures futures;

	private final @Nullable ReactiveRateLimitedCalls reactive;

	/**
	 * Creates the interceptor.
	 * @param policies the policies of annotated methods
	 * @param enforcer the enforcer
	 * @param headers the header writer, for responses of admitted calls inside web requests
	 * @param currentRequest the web request a call is made in, if any
	 * @param ipKeys how a client is identified by its address, for calls whose key expression finds nothing
	 * @param executor where calls of methods returning futures continue once a decision that was not complete at once
	 * admits them
	 * @param reactiveCurrentRequest the web request a reactive method's subscriber serves, or {@code null} for none;
	 * used only when Reactor is on the classpath
	 */
	RateLimitedInterceptor(RateLimitedPolicies policies, RateLimitEnforcer enforcer, RateLimitHeaders headers,
			CurrentRequest currentRequest, IpKeys ipKeys, Executor executor,
			@Nullable ReactiveCurrentRequest reactiveCurrentRequest) {
		this.policies = policies;
		this.currentRequest = currentRequest;
		this.enforcement = new RateLimitedEnforcement(enforcer, headers, ipKeys);
		this.futures = new RateLimitedFutures(this.enforcement, executor);
		this.reactive = reactorPresent ? new ReactiveRateLimitedCalls(this.enforcement,
				(reactiveCurrentRequest != null) ? reactiveCurrentRequest : ReactiveCurrentRequest.NONE) : null;
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		Method method = invocation.getMethod();
		Object target = invocation.getThis();
		Class<?> targetClass = (target != null) ? AopProxyUtils.ultimateTargetClass(target)
				: method.getDeclaringClass();
		List<AnnotatedPolicy> limits = this.policies.of(method, targetClass);
		if (limits.isEmpty()) {
			return invocation.proceed();
		}
		if (RateLimitedFutures.returnsFuture(method)) {
			return this.futures.invoke(invocation, limits, this.currentRequest);
		}
		ReactiveAdapter adapter = (this.reactive != null) ? this.reactive.adapter(method) : null;
		if (adapter != null && invocation instanceof ProxyMethodInvocation proxied) {
			return this.reactive.invoke(proxied, limits, adapter);
		}
		if (this.reactive != null) {
			this.reactive.warnIfNonBlockingThread(method);
		}
		this.enforcement.enforce(limits, invocation.getArguments(), this.currentRequest);
		return invocation.proceed();
	}

}
