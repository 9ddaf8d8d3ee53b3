package io.github.ratelimit.spring.annotation;

import io.github.ratelimit.autoconfigure.RateLimitAspectAutoConfiguration;
import io.github.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.ratelimit.autoconfigure.RateLimitRedisAutoConfiguration;
import io.github.ratelimit.spring.RateLimitRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An invalid {@link RateLimited} stops start-up with a message naming the method, instead of failing its calls.
 */
class RateLimitedStartupValidationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, RateLimitRedisAutoConfiguration.class, RateLimitAutoConfiguration.class,
				RateLimitAspectAutoConfiguration.class))
		.withPropertyValues("ratelimit.backend=in-memory");

	@Test
	void annotationPoliciesAreDeclaredAtStartUp() {
		this.runner.withBean(Valid.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(RateLimitRegistry.class).find("valid")).isPresent();
			assertThat(context.getBean(RateLimitRegistry.class).find("Valid.byDefault")).isPresent();
		});
	}

	@Test
	void unparsableLimitsFailStartUpNamingTheMethod() {
		this.runner.withBean(Unparsable.class)
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("Invalid limit 'lots'"));
		this.runner.withBean(Unparsable.class)
			.run((context) -> assertThat(context.getStartupFailure()).hasStackTraceContaining(
					"Invalid @RateLimited on " + Unparsable.class.getName() + ".call"));
	}

	@Test
	void nameWithoutConfigurationOrLimitsFailsStartUp() {
		this.runner.withBean(Unconfigured.class)
			.run((context) -> assertThat(context.getStartupFailure())
				.hasStackTraceContaining("No rate limit policy 'nowhere'"));
		this.runner.withBean(Unconfigured.class)
			.withPropertyValues("ratelimit.policies.nowhere.limits=1/1s")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void oneNameWithTwoSetsOfLimitsFailsStartUp() {
		this.runner.withBean(Valid.class)
			.withBean(Conflicting.class)
			.run((context) -> assertThat(context.getStartupFailure())
				.hasStackTraceContaining("is declared by @RateLimited both as"));
	}

	@Test
	void unparsableExpressionFailsStartUp() {
		this.runner.withBean(BadExpression.class)
			.run((context) -> assertThat(context.getStartupFailure())
				.hasStackTraceContaining("Invalid @RateLimited on " + BadExpression.class.getName() + ".call"));
	}

	static class Valid {

		@RateLimited(name = "valid", limits = "5/1m")
		public void call() {
		}

		@RateLimited(limits = "5/1m")
		public void byDefault() {
		}

	}

	static class Conflicting {

		@RateLimited(name = "valid", limits = "6/1m")
		public void call() {
		}

	}

	static class Unparsable {

		@RateLimited(name = "unparsable", limits = "lots")
		public void call() {
		}

	}

	static class Unconfigured {

		@RateLimited("nowhere")
		public void call() {
		}

	}

	static class BadExpression {

		@RateLimited(name = "expression", limits = "1/1s", key = "#customer.(")
		public void call() {
		}

	}

}
