package io.github.ratelimit.spring.annotation;

import io.github.ratelimit.autoconfigure.RateLimitAspectAutoConfiguration;
import io.github.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.ratelimit.autoconfigure.RateLimitRedisAutoConfiguration;
import io.github.ratelimit.autoconfigure.RateLimitServletAutoConfiguration;
import io.github.ratelimit.spring.FailureMode;
import io.github.ratelimit.spring.PolicyUse;
import io.github.ratelimit.spring.RateLimitCounters;
import io.github.ratelimit.spring.RateLimitEnforcer;
import io.github.ratelimit.spring.RateLimitRegistry;
import io.github.ratelimit.spring.actuate.RateLimitsEndpoint;
import io.github.ratelimit.spring.actuate.RateLimitsEndpoint.PolicyReport;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.ApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code ratelimits} endpoint reports the key and cost a {@link RateLimited} method applies its policy with: an
 * annotation without a key, its policy's key strategy in a web application, the global key in one without a web stack.
 */
class RateLimitedEndpointReportTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, RateLimitRedisAutoConfiguration.class,
				RateLimitAutoConfiguration.class, RateLimitAspectAutoConfiguration.class))
		.withPropertyValues("ratelimit.backend=in-memory", "ratelimit.policies.orders.limits=10/1m",
				"ratelimit.policies.orders.key=header:X-Api-Key", "ratelimit.policies.orders.cost=2")
		.withBean(Exports.class);

	private final WebApplicationContextRunner webRunner = new WebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, RateLimitRedisAutoConfiguration.class,
				RateLimitAutoConfiguration.class, RateLimitServletAutoConfiguration.class,
				RateLimitAspectAutoConfiguration.class))
		.withPropertyValues("ratelimit.backend=in-memory", "ratelimit.policies.orders.limits=10/1m",
				"ratelimit.policies.orders.key=header:X-Api-Key", "ratelimit.policies.orders.cost=2")
		.withBean(Exports.class);

	@Test
	void policyDeclaredByAnAnnotationShouldReportItsKeyAndCostExpressions() {
		this.runner.run((context) -> {
			PolicyReport exports = report(context, "exports");
			assertThat(exports.key()).isEqualTo("#customerId");
			assertThat(exports.cost()).isEqualTo("#rows / 1000 + 1");
			assertThat(exports.annotations()).containsExactly(
					new PolicyUse(Exports.class.getName() + ".export", "#customerId", "#rows / 1000 + 1"));
		});
	}

	@Test
	void configuredPolicyShouldReportItsOwnKeyAndCostAndEachAnnotatedMethodsOwn() {
		this.webRunner.run((context) -> {
			PolicyReport orders = report(context, "orders");
			assertThat(orders.key()).isEqualTo("header:X-Api-Key");
			assertThat(orders.cost()).isEqualTo("2");
			assertThat(orders.annotations()).containsExactly(
					new PolicyUse(Exports.class.getName() + ".byConfiguration", "header:X-Api-Key", "2"),
					new PolicyUse(Exports.class.getName() + ".byCustomer", "#customerId", "2"));
		});
	}

	@Test
	void annotationWithoutAKeyInAnApplicationWithoutAWebStackShouldReportTheGlobalKeyItCountsCallsUnder() {
		this.runner.run((context) -> assertThat(report(context, "orders").annotations()).containsExactly(
				new PolicyUse(Exports.class.getName() + ".byConfiguration", "global", "2"),
				new PolicyUse(Exports.class.getName() + ".byCustomer", "#customerId", "2")));
	}

	private static PolicyReport report(ApplicationContext context, String policy) {
		RateLimitsEndpoint endpoint = new RateLimitsEndpoint(context.getBean(RateLimitRegistry.class),
				context.getBean(RateLimitCounters.class), context.getBean(RateLimitEnforcer.class), FailureMode.OPEN);
		return endpoint.rateLimits().policies().get(policy);
	}

	static class Exports {

		@RateLimited(name = "exports", limits = "5/1h", key = "#customerId", cost = "#rows / 1000 + 1")
		public void export(String customerId, int rows) {
		}

		@RateLimited("orders")
		public void byConfiguration() {
		}

		@RateLimited(name = "orders", key = "#customerId")
		public void byCustomer(String customerId) {
		}

	}

}
