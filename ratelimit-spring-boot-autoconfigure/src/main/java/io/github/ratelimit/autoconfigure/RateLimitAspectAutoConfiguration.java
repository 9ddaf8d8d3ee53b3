package io.github.ratelimit.autoconfigure;

import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;

import io.github.ratelimit.spring.CurrentRequest;
import io.github.ratelimit.spring.IpKeys;
import io.github.ratelimit.spring.RateLimitEnforcer;
import io.github.ratelimit.spring.RateLimitRegistry;
import io.github.ratelimit.spring.ReactiveCurrentRequest;
import io.github.ratelimit.spring.annotation.RateLimitedAdvisor;
import io.github.ratelimit.spring.annotation.RateLimitedPolicies;
import io.github.ratelimit.spring.web.RateLimitHeaders;

import org.aopalliance.intercept.MethodInterceptor;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Role;

/**
 * Enforcement of {@code @RateLimited}: an advisor that any auto-proxy creator applies (Spring Boot registers one
 * with or without AspectJ), and the start-up check of every annotated bean. Calls of methods returning futures
 * continue on Spring Boot's {@code applicationTaskExecutor} when there is one, else on the common fork-join pool.
 */
@AutoConfiguration(after = { RateLimitAutoConfiguration.class, RateLimitServletAutoConfiguration.class,
		RateLimitReactiveAutoConfiguration.class, AopAutoConfiguration.class, TaskExecutionAutoConfiguration.class })
@ConditionalOnBean(RateLimitRegistry.class)
public final class RateLimitAspectAutoConfiguration {

	/** The interceptor's bean name, by which the advisor finds it on the first call of a rate limited method. */
	private static final String INTERCEPTOR = "rateLimitedInterceptor";

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	@ConditionalOnMissingBean
	static RateLimitedAdvisor rateLimitedAdvisor(BeanFactory beanFactory) {
		return new RateLimitedAdvisor(() -> beanFactory.getBean(INTERCEPTOR, MethodInterceptor.class));
	}

	@Bean
	@ConditionalOnMissingBean
	RateLimitedPolicies rateLimitedPolicies(RateLimitedAdvisor advisor, RateLimitRegistry registry,
			CurrentRequest currentRequest, ObjectProvider<ReactiveCurrentRequest> reactiveCurrentRequest) {
		return advisor.policies(registry,
				currentRequest != CurrentRequest.NONE || reactiveCurrentRequest.getIfAvailable() != null);
	}

	@Bean(INTERCEPTOR)
	@ConditionalOnMissingBean(name = INTERCEPTOR)
	MethodInterceptor rateLimitedInterceptor(RateLimitedPolicies policies, RateLimitEnforcer enforcer,
			RateLimitHeaders headers, CurrentRequest currentRequest, IpKeys ipKeys,
			@Qualifier(TaskExecutionAutoConfiguration.APPLICATION_TASK_EXECUTOR_BEAN_NAME) ObjectProvider<Executor> taskExecutor,
			ObjectProvider<ReactiveCurrentRequest> reactiveCurrentRequest) {
		return RateLimitedAdvisor.interceptor(policies, enforcer, headers, currentRequest, ipKeys,
				taskExecutor.getIfAvailable(ForkJoinPool::commonPool), reactiveCurrentRequest.getIfAvailable());
	}

	@Bean
	@ConditionalOnMissingBean(name = "rateLimitedStartupCheck")
	SmartInitializingSingleton rateLimitedStartupCheck(RateLimitedPolicies policies, RateLimitRegistry registry,
			ObjectProvider<RoutePolicies> routes) {
		return RateLimitedAdvisor.startupCheck(policies, (applied) -> AppliedPolicies
			.requireEveryPolicyApplied(registry, applied, routes.orderedStream().toList()));
	}

	/**
	 * No web request, for applications without a web stack (each stack's auto-configuration provides its own).
	 */
	@Bean
	@ConditionalOnMissingBean
	CurrentRequest rateLimitCurrentRequest() {
		return CurrentRequest.NONE;
	}

}
