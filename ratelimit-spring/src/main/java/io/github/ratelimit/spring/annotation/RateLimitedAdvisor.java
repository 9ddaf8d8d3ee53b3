package io.github.ratelimit.spring.annotation;

import java.lang.reflect.Method;
import java.util.function.Supplier;

import org.aopalliance.aop.Advice;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.core.Ordered;

/**
 * Applies {@link RateLimitedInterceptor} to the methods {@link RateLimitedAnnotations} finds annotations for, as
 * Spring applies its transaction and cache interceptors: any auto-proxy creator (Spring Boot's, with or without
 * AspectJ) proxies the beans it matches. Ordered early, so a refused call starts no transaction and reaches no cache.
 * The interceptor is created on first use, so the advisor, which auto-proxying creates early, pulls in nothing else.
 */
public class RateLimitedAdvisor extends AbstractPointcutAdvisor {

	/** The advisor's order: before transactions, caches and most application advice. */
	public static final int ORDER = Ordered.HIGHEST_PRECEDENCE + 1000;

	private final transient Pointcut pointcut;

	private final transient Advice advice;

	/**
	 * Creates the advisor.
	 * @param annotations where annotations are found
	 * @param interceptor the interceptor, created on the first call of a rate limited method
	 */
	public RateLimitedAdvisor(RateLimitedAnnotations annotations, Supplier<RateLimitedInterceptor> interceptor) {
		this.pointcut = new RateLimitedPointcut(annotations);
		this.advice = new LazyInterceptor(interceptor);
		setOrder(ORDER);
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

		private final Supplier<RateLimitedInterceptor> interceptor;

		private volatile @Nullable RateLimitedInterceptor resolved;

		LazyInterceptor(Supplier<RateLimitedInterceptor> interceptor) {
			this.interceptor = interceptor;
		}

		@Override
		public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
			RateLimitedInterceptor resolved = this.resolved;
			if (resolved == null) {
				resolved = this.interceptor.get();
				this.resolved = resolved;
			}
			return resolved.invoke(invocation);
		}

	}

}
