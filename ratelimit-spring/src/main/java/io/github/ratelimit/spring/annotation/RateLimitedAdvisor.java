package io.github.ratelimit.spring.annotation;

import java.lang.reflect.Method;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import java.util.function.Supplier;

import io.github.ratelimit.spring.CurrentRequest;
import io.github.ratelimit.spring.IpKeys;
import io.github.ratelimit.spring.RateLimitEnforcer;
import io.github.ratelimit.spring.RateLimitRegistry;
import io.github.ratelimit.spring.ReactiveCurrentRequest;
import io.github.ratelimit.spring.web.RateLimitHeaders;

import org.aopalliance.aop.Advice;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.core.Ordered;

/**
 * Applies {@link RateLimitedInterceptor} to the methods {@link RateLimitedAnnotations} finds annotations for, as
 * Spring applies its transaction and cache interceptors: any auto-proxy creator (Spring Boot's, with or without
 * AspectJ) proxies the beans it matches. Ordered early, so a refused call starts no transaction and reaches no cache.
 * The interceptor is created on first use, so the advisor, which auto-proxying creates early, pulls in nothing else.
 * <p>
 * The advisor is also where the rest of the annotation support is made: the policies of annotated methods (sharing
 * the advisor's lookup of annotations), the interceptor and the start-up check.
 */
public class RateLimitedAdvisor extends AbstractPointcutAdvisor {

	/** The advisor's order: before transactions, caches and most application advice. */
	public static final int ORDER = Ordered.HIGHEST_PRECEDENCE + 1000;

	private final transient Pointcut pointcut;

	private final transient Advice advice;

	private final transient RateLimitedAnnotations annotations;

	/**
	 * Creates the advisor.
	 * @param interceptor the interceptor ({@link #interceptor}), asked for on the first call of a rate limited method
	 */
	public RateLimitedAdvisor(Supplier<? extends MethodInterceptor> interceptor) {
		this.annotations = new RateLimitedAnnotations();
		this.pointcut = new RateLimitedPointcut(this.annotations);
		this.advice = new LazyInterceptor(interceptor);
		setOrder(ORDER);
	}

	/**
	 * The policies of the methods this advisor applies to, bound to a registry's.
	 * @param registry the policies
	 * @param webRequests whether calls can be made inside web requests (the application has a web stack): without,
	 * an annotation without a key counts every call under the global key
	 * @return the policies of annotated methods
	 */
	public RateLimitedPolicies policies(RateLimitRegistry registry, boolean webRequests) {
		return new RateLimitedPolicies(this.annotations, registry, webRequests);
	}

	/**
	 * The interceptor that enforces the policies of annotated methods, for every return type.
	 * @param policies the policies of annotated methods ({@link #policies})
	 * @param enforcer the enforcer
	 * @param headers the header writer, for responses of admitted calls inside web requests
	 * @param currentRequest the web request a call is made in, if any
	 * @param ipKeys how a client is identified by its address, for calls whose key expression finds nothing
	 * @param executor where calls of methods returning futures continue once a decision that was not complete at once
	 * admits them
	 * @param reactiveCurrentRequest the web request a reactive method's subscriber serves, or {@code null} for none;
	 * used only when Reactor is on the classpath
	 * @return the interceptor
	 */
	public static MethodInterceptor interceptor(RateLimitedPolicies policies, RateLimitEnforcer enforcer,
			RateLimitHeaders headers, CurrentRequest currentRequest, IpKeys ipKeys, Executor executor,
			@Nullable ReactiveCurrentRequest reactiveCurrentRequest) {
		return new RateLimitedInterceptor(policies, enforcer, headers, currentRequest, ipKeys, executor,
				reactiveCurrentRequest);
	}

	/**
	 * The check, run once every singleton exists, of every annotated method of the application's beans: an invalid
	 * annotation or one that can never be enforced stops start-up naming the method.
	 * @param policies the policies of annotated methods ({@link #policies})
	 * @param appliedPolicies told the names of the policies the annotations apply, once every bean is checked
	 * @return the check, to declare as a bean
	 */
	public static SmartInitializingSingleton startupCheck(RateLimitedPolicies policies,
			Consumer<Set<String>> appliedPolicies) {
		return new RateLimitedStartupCheck(policies, appliedPolicies);
	}

	@Override
	public Pointcut getPointcut() {
		return this.pointcut;
	}

	@Override
	public Advice getAdvice() {
		return this.advice;
	}

	/**
	 * Matches the methods that {@link RateLimitedAnnotations} finds annotations for.
	 */
	private static final class RateLimitedPointcut extends StaticMethodMatcherPointcut {

		private final RateLimitedAnnotations annotations;

		RateLimitedPointcut(RateLimitedAnnotations annotations) {
			this.annotations = annotations;
			setClassFilter(annotations::isCandidate);
		}

		@Override
		public boolean matches(Method method, Class<?> targetClass) {
			return !this.annotations.find(method, targetClass).isEmpty();
		}

	}

	/**
	 * Calls the interceptor, resolved on the first call without a lock: a rate limited method's first calls may come
	 * at once on event loops, which must not wait for each other, and resolving the interceptor bean twice gives the
	 * same singleton.
	 */
	private static final class LazyInterceptor implements MethodInterceptor {

		private final Supplier<? extends MethodInterceptor> interceptor;

		private volatile @Nullable MethodInterceptor resolved;

		LazyInterceptor(Supplier<? extends MethodInterceptor> interceptor) {
			this.interceptor = interceptor;
		}

		@Override
		public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
			MethodInterceptor resolved = this.resolved;
			if (resolved == null) {
				resolved = this.interceptor.get();
				this.resolved = resolved;
			}
			return resolved.invoke(invocation);
		}

	}

}
