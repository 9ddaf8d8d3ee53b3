package io.github.ratelimit.autoconfigure;

import io.github.ratelimit.spring.annotation.RateLimited;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@code sliding-log} limit above its bound stops start-up, from configuration or from {@link RateLimited}, naming
 * where it was declared, the bound and the alternatives.
 */
class SlidingLogBoundStartupTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, RateLimitRedisAutoConfiguration.class,
				RateLimitAutoConfiguration.class, RateLimitAspectAutoConfiguration.class))
		.withPropertyValues("ratelimit.backend=in-memory");

	@Test
	void configuredSlidingLogAboveTheBoundFailsStartUpNamingThePolicy() {
		this.runner
			.withPropertyValues("ratelimit.policies.orders.limits=10/1s,100000/1h",
					"ratelimit.policies.orders.algorithm=sliding-log")
			.run((context) -> {
				InvalidRateLimitConfigurationException invalid = InvalidConfiguration.of(context);
				assertThat(invalid.getProperty()).startsWith("ratelimit.policies.orders");
				assertThat(invalid.getMessage()).contains("100000/1h", "at most 500", "sliding-window", "gcra");
				assertThat(invalid.getAction()).contains("bounds of the policy's algorithm");
			});
		this.runner
			.withPropertyValues("ratelimit.policies.orders.limits=500/1h", "ratelimit.policies.orders.algorithm=sliding-log",
					"ratelimit.policies.orders.paths=/api/orders")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void annotatedSlidingLogAboveTheBoundFailsStartUpNamingTheMethod() {
		this.runner.withBean(TooLarge.class)
			.run((context) -> assertThat(context.getStartupFailure())
				.hasStackTraceContaining("Invalid @RateLimited on " + TooLarge.class.getName() + ".call")
				.hasStackTraceContaining("too large for sliding-log"));
	}

	static class TooLarge {

		@RateLimited(name = "too-large", limits = "100000/1h", algorithm = "sliding-log")
		public void call() {
		}

	}

}
