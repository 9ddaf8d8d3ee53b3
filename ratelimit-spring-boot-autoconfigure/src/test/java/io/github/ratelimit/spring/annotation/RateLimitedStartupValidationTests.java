package io.github.ratelimit.spring.annotation;

import java.util.Objects;

import io.github.ratelimit.autoconfigure.RateLimitAspectAutoConfiguration;
import io.github.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.ratelimit.autoconfigure.RateLimitRedisAutoConfiguration;
import io.github.ratelimit.spring.RateLimitRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.io.support.SpringFactoriesLoader;

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

	@Test
	void unknownAlgorithmFailsStartUpNamingTheMethod() {
		this.runner.withBean(UnknownAlgorithm.class)
			.run((context) -> assertAnalyzed(context, UnknownAlgorithm.class, "call",
					"Unknown rate limit algorithm 'leaky-bucket'"));
	}

	@Test
	void zeroCapacityFailsStartUpNamingTheMethod() {
		this.runner.withBean(ZeroCapacity.class)
			.run((context) -> assertAnalyzed(context, ZeroCapacity.class, "call", "capacity"));
	}

	@Test
	void constantCostBelowOneFailsStartUpNamingTheMethod() {
		this.runner.withBean(FreeCalls.class)
			.run((context) -> assertAnalyzed(context, FreeCalls.class, "call", "the cost 0 is outside 1..5"));
	}

	@Test
	void constantCostAboveTheCapacityFailsStartUpNamingTheMethod() {
		this.runner.withBean(ExpensiveCalls.class)
			.run((context) -> assertAnalyzed(context, ExpensiveCalls.class, "call", "the cost 6 is outside 1..5"));
	}

	@Test
	void privateMethodFailsStartUpNamingTheMethod() {
		this.runner.withBean(PrivateMethod.class)
			.run((context) -> assertAnalyzed(context, PrivateMethod.class, "hidden", "the method is private"));
	}

	@Test
	void staticMethodFailsStartUpNamingTheMethod() {
		this.runner.withBean(StaticMethod.class)
			.run((context) -> assertAnalyzed(context, StaticMethod.class, "shared", "the method is static"));
	}

	@Test
	void finalMethodFailsStartUpNamingTheMethod() {
		this.runner.withBean(FinalMethod.class)
			.run((context) -> assertAnalyzed(context, FinalMethod.class, "fixed", "the method is final"));
	}

	@Test
	void classLevelAnnotationPassesOverFinalMethods() {
		this.runner.withBean(ClassLevelWithFinalMethod.class).run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void annotatedBeanWhenAutoProxyingIsOffFailsStartUpNamingTheMethod() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(RateLimitRedisAutoConfiguration.class,
					RateLimitAutoConfiguration.class, RateLimitAspectAutoConfiguration.class))
			.withPropertyValues("ratelimit.backend=in-memory")
			.withBean(Valid.class)
			.run((context) -> assertAnalyzed(context, Valid.class, "call", "the bean is not proxied"));
		this.runner.withPropertyValues("spring.aop.auto=false")
			.withBean(Valid.class)
			.run((context) -> assertAnalyzed(context, Valid.class, "call", "spring.aop.auto=false"));
	}

	@Test
	void methodMissingFromTheInterfacesOfAJdkProxyFailsStartUpNamingTheMethod() {
		this.runner.withPropertyValues("spring.aop.proxy-target-class=false")
			.withBean(Runnable.class, NotOnTheInterface::new)
			.run((context) -> assertAnalyzed(context, NotOnTheInterface.class, "extra",
					"none of its interfaces declares the method"));
	}

	@Test
	void configuredPolicyAppliedNowhereFailsStartUpNamingThePolicy() {
		this.runner.withPropertyValues("ratelimit.policies.orders.limits=1/1s")
			.withBean(Valid.class)
			.run((context) -> {
				assertThat(context).hasFailed();
				FailureAnalysis analysis = analyze(context.getStartupFailure());
				assertThat(analysis.getDescription()).contains("'ratelimit.policies.orders'")
					.contains("no paths and no @RateLimited names it");
				assertThat(analysis.getAction()).contains("ratelimit.policies.orders.paths")
					.contains("@RateLimited(\"orders\")");
			});
	}

	@Test
	void configuredPolicyAppliedByTheFilterOrAnAnnotationStartsUp() {
		this.runner.withPropertyValues("ratelimit.policies.site.limits=1/1s", "ratelimit.policies.site.paths=/a",
				"ratelimit.policies.nowhere.limits=1/1s")
			.withBean(Unconfigured.class)
			.run((context) -> assertThat(context).hasNotFailed());
	}

	private static void assertAnalyzed(AssertableApplicationContext context, Class<?> type, String method,
			String problem) {
		assertThat(context).hasFailed();
		FailureAnalysis analysis = analyze(context.getStartupFailure());
		assertThat(analysis.getDescription()).startsWith("Invalid @RateLimited on " + type.getName() + "." + method)
			.contains(problem);
		assertThat(analysis.getAction()).startsWith("Update @RateLimited on " + type.getName() + "." + method + ": ");
	}

	/**
	 * Analyzes a start-up failure with the failure analyzers registered in spring.factories, as Spring Boot does
	 * (those that need a bean factory to be created are left out).
	 */
	private static FailureAnalysis analyze(Throwable failure) {
		return SpringFactoriesLoader.forDefaultResourceLocation()
			.load(FailureAnalyzer.class, SpringFactoriesLoader.FailureHandler.handleMessage((message, error) -> {
			}))
			.stream()
			.map((analyzer) -> analyzer.analyze(failure))
			.filter(Objects::nonNull)
			.findFirst()
			.orElseThrow(() -> new AssertionError("No failure analysis of " + failure));
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

	static class UnknownAlgorithm {

		@RateLimited(name = "unknown-algorithm", limits = "1/1s", algorithm = "leaky-bucket")
		public void call() {
		}

	}

	static class ZeroCapacity {

		@RateLimited(name = "zero", limits = "0/1m")
		public void call() {
		}

	}

	static class FreeCalls {

		@RateLimited(name = "free", limits = "5/1m", cost = "0")
		public void call() {
		}

	}

	static class ExpensiveCalls {

		@RateLimited(name = "expensive", limits = { "10/1m", "5/1h" }, cost = "6")
		public void call() {
		}

	}

	static class PrivateMethod {

		public void call() {
			hidden();
		}

		@RateLimited(name = "private", limits = "1/1s")
		private void hidden() {
		}

	}

	static class StaticMethod {

		@RateLimited(name = "static", limits = "1/1s")
		public static void shared() {
		}

	}

	static class FinalMethod {

		@RateLimited(name = "final", limits = "1/1s")
		public final void fixed() {
		}

	}

	@RateLimited(limits = "1/1s")
	static class ClassLevelWithFinalMethod {

		public void call() {
		}

		public final void fixed() {
		}

	}

	static class NotOnTheInterface implements Runnable {

		@Override
		public void run() {
		}

		@RateLimited(name = "extra", limits = "1/1s")
		public void extra() {
		}

	}

}
