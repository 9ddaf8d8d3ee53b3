package io.github.ratelimit.autoconfigure;

import io.github.ratelimit.spring.annotation.RateLimited;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests that start-up logs one INFO line naming the backend, the failure mode and every active policy, those only
 * {@code @RateLimited} declares included, with the keys it really counts by.
 */
@ExtendWith(OutputCaptureExtension.class)
class RateLimitStartupLoggerTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RateLimitRedisAutoConfiguration.class, RateLimitAutoConfiguration.class))
		.withPropertyValues("ratelimit.backend=in-memory");

	@Test
	void startUpShouldLogTheBackendTheFailureModeAndEveryPolicy(CapturedOutput output) {
		this.contextRunner
			.withPropertyValues("ratelimit.failure-mode=closed", "ratelimit.policies.hello.paths=/api/hello",
					"ratelimit.policies.hello.limits=5/10s", "ratelimit.policies.hello.max-wait=1500ms",
					"ratelimit.policies.orders.limits=10/1m,500/1d",
					"ratelimit.policies.orders.algorithm=gcra", "ratelimit.policies.orders.key=header:X-Api-Key",
					"ratelimit.policies.orders.failure-mode=local", "ratelimit.policies.reports.paths=/reports/**",
					"ratelimit.policies.reports.exclude-paths=/reports/health",
					"ratelimit.policies.reports.methods=POST,GET", "ratelimit.policies.reports.limits=2/1s",
					"ratelimit.policies.reports.cost=2", "ratelimit.policies.reports.shadow=true")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(output.getOut().lines().filter((line) -> line.contains("Rate limiting on backend")))
					.singleElement()
					.satisfies((line) -> assertThat(line).contains(" INFO ")
						.endsWith("Rate limiting on backend in-memory, failure mode closed, policies: "
								+ "hello (5/10s, token-bucket, key ip, filter /api/hello, waits up to 1500ms); "
								+ "orders (10/1m, 500/1d, gcra, key header:X-Api-Key, @RateLimited only, "
								+ "failure mode local); "
								+ "reports (2/1s, token-bucket, key ip, filter GET|POST /reports/** except "
								+ "/reports/health, cost 2, shadow)"));
			});
	}

	@Test
	void startUpShouldLogThePlansOfAPolicyWithPlans(CapturedOutput output) {
		this.contextRunner
			.withPropertyValues("ratelimit.policies.orders.paths=/api/orders/**",
					"ratelimit.policies.orders.key=header:X-Api-Key",
					"ratelimit.policies.orders.plan=expr:#key.startsWith('pro-') ? 'pro' : 'free'",
					"ratelimit.policies.orders.default-plan=free", "ratelimit.policies.orders.plans.free.limits=10/1m",
					"ratelimit.policies.orders.plans.pro.limits=100/1m,5000/1d",
					"ratelimit.policies.orders.plans.pro.algorithm=gcra", "ratelimit.policies.orders.plans.pro.cost=2",
					"ratelimit.policies.orders.plans.trial.limits=5/1m")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(output).contains("Rate limiting on backend in-memory, failure mode open, policies: "
						+ "orders (plan expr:#key.startsWith('pro-') ? 'pro' : 'free', plans "
						+ "free (10/1m, token-bucket, default), pro (100/1m, 5000/1d, gcra, cost 2), "
						+ "trial (5/1m, token-bucket), key header:X-Api-Key, filter /api/orders/**)");
			});
	}

	@Test
	void startUpShouldLogPoliciesOnlyAnnotationsDeclareAndTheGlobalKeyOfAWorker(CapturedOutput output) {
		this.contextRunner
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class,
					RateLimitAspectAutoConfiguration.class))
			.withPropertyValues("ratelimit.policies.partner.limits=10/1s")
			.withBean(Worker.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(summary(output)).endsWith("policies: partner (10/1s, token-bucket, key global, "
						+ "@RateLimited only); exports (5/1h, token-bucket, key #customerId | global, "
						+ "@RateLimited only)");
			});
	}

	@Test
	void startUpShouldLogTheKeysOfTheFilterAndOfEachAnnotatedMethodOfAWebApplication(CapturedOutput output) {
		new WebApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class,
					RateLimitRedisAutoConfiguration.class, RateLimitAutoConfiguration.class,
					RateLimitServletAutoConfiguration.class, RateLimitAspectAutoConfiguration.class))
			.withPropertyValues("ratelimit.backend=in-memory", "ratelimit.policies.partner.limits=10/1s",
					"ratelimit.policies.partner.paths=/partner/**", "ratelimit.policies.partner.key=header:X-Api-Key")
			.withBean(Worker.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(summary(output)).endsWith("policies: partner (10/1s, token-bucket, key header:X-Api-Key, "
						+ "filter /partner/**); exports (5/1h, token-bucket, key #customerId | ip, "
						+ "@RateLimited only)");
			});
	}

	private static String summary(CapturedOutput output) {
		return output.getOut().lines().filter((line) -> line.contains("Rate limiting on backend")).reduce(
				(first, second) -> {
					throw new AssertionError("Logged twice: " + first + System.lineSeparator() + second);
				}).orElseThrow();
	}

	@Test
	void startUpWithoutPoliciesShouldSaySo(CapturedOutput output) {
		this.contextRunner.run((context) -> assertThat(output)
			.contains("Rate limiting on backend in-memory, failure mode open, policies: none configured"));
	}

	static class Worker {

		@RateLimited("partner")
		public void call() {
		}

		@RateLimited(name = "exports", limits = "5/1h")
		public void exportAll() {
		}

		@RateLimited(name = "exports", limits = "5/1h", key = "#customerId")
		public void export(String customerId) {
		}

	}

}
