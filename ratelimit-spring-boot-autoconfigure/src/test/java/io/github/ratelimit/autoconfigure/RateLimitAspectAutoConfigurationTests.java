package io.github.ratelimit.autoconfigure;

import io.github.ratelimit.spring.RateLimitExceededException;
import io.github.ratelimit.spring.RateLimitRegistry;
import io.github.ratelimit.spring.annotation.RateLimited;
import io.github.ratelimit.spring.annotation.RateLimitedAdvisor;
import org.aopalliance.intercept.MethodInterceptor;
import org.aspectj.weaver.Advice;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link RateLimitAspectAutoConfiguration}.
 */
class RateLimitAspectAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, RateLimitRedisAutoConfiguration.class,
				RateLimitAutoConfiguration.class, RateLimitAspectAutoConfiguration.class))
		.withPropertyValues("ratelimit.backend=in-memory");

	@Test
	void advisorShouldBeCreated() {
		this.contextRunner.run((context) -> assertThat(context).hasSingleBean(RateLimitedAdvisor.class));
	}

	@Test
	void annotationsWhenAspectJWeaverIsAbsentShouldStillBeEnforced() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(Advice.class))
			.withBean(Limited.class)
			.run((context) -> {
				assertThat(context).hasNotFailed().hasSingleBean(RateLimitedAdvisor.class);
				Limited limited = context.getBean(Limited.class);
				limited.call();
				assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(limited::call);
			});
	}

	@Test
	void advisorWhenRateLimitingIsDisabledShouldNotBeCreated() {
		this.contextRunner.withPropertyValues("ratelimit.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(RateLimitedAdvisor.class)
				.doesNotHaveBean(RateLimitRegistry.class));
	}

	@Test
	void userDefinedAdvisorShouldReplaceOurs() {
		this.contextRunner
			.withBean("userAdvisor", RateLimitedAdvisor.class,
					() -> new RateLimitedAdvisor(() -> {
						throw new IllegalStateException("not called");
					}))
			.run((context) -> assertThat(context).hasSingleBean(RateLimitedAdvisor.class).hasBean("userAdvisor"));
	}

	@Test
	void userDefinedInterceptorShouldReplaceOursByName() {
		this.contextRunner.withBean(Limited.class)
			.withBean("rateLimitedInterceptor", MethodInterceptor.class, () -> (invocation) -> null)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				Limited limited = context.getBean(Limited.class);
				// the limit is 1/1h: our interceptor would refuse the second call
				limited.call();
				limited.call();
			});
	}

	public static class Limited {

		@RateLimited(name = "limited", limits = "1/1h")
		public void call() {
		}

	}

}
