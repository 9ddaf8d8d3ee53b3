package io.github.ratelimit.autoconfigure;

import io.github.ratelimit.spring.RateLimitRegistry;
import io.github.ratelimit.spring.annotation.RateLimitedAspect;
import org.aspectj.weaver.Advice;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link RateLimitAspectAutoConfiguration}.
 */
class RateLimitAspectAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, RateLimitRedisAutoConfiguration.class, RateLimitAutoConfiguration.class,
				RateLimitAspectAutoConfiguration.class))
		.withPropertyValues("ratelimit.backend=in-memory");

	@Test
	void aspectShouldBeCreatedWhenAspectJIsPresent() {
		this.contextRunner.run((context) -> assertThat(context).hasSingleBean(RateLimitedAspect.class));
	}

	@Test
	void aspectWhenAspectJWeaverIsAbsentShouldNotBeCreated() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(Advice.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(RateLimitedAspect.class)
				.hasSingleBean(RateLimitRegistry.class));
	}

	@Test
	void aspectWhenRateLimitingIsDisabledShouldNotBeCreated() {
		this.contextRunner.withPropertyValues("ratelimit.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RateLimitedAspect.class));
	}

	@Test
	void userDefinedAspectShouldReplaceOurs() {
		this.contextRunner
			.withBean("userAspect", RateLimitedAspect.class)
			.run((context) -> assertThat(context).hasSingleBean(RateLimitedAspect.class).hasBean("userAspect"));
	}

}
