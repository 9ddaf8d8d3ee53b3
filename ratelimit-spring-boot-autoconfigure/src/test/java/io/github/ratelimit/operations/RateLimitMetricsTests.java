package io.github.ratelimit.operations;

import java.util.List;
import java.util.UUID;

import io.github.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.ratelimit.autoconfigure.RateLimitRedisAutoConfiguration;
import io.github.ratelimit.autoconfigure.RateLimitMetricsAutoConfiguration;
import io.github.ratelimit.spring.PolicyDefinition;
import io.github.ratelimit.spring.PolicyPlan;
import io.github.ratelimit.spring.RateLimitEnforcer;
import io.github.ratelimit.spring.RateLimitRegistry;
import io.github.ratelimit.spring.metrics.RateLimitMetrics;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static io.github.ratelimit.test.Decisions.enforce;
import static io.micrometer.core.tck.MeterRegistryAssert.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Rate limit meters on the application's registry: counts by policy and outcome that match the requests, a timer
 * of backend calls, no per-client tags, never the global registry.
 */
class RateLimitMetricsTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(RateLimitRedisAutoConfiguration.class, RateLimitAutoConfiguration.class, RateLimitMetricsAutoConfiguration.class))
		.withPropertyValues("ratelimit.backend=in-memory", "ratelimit.policies.api.limits=3/1h",
				"ratelimit.policies.dark.limits=1/1h", "ratelimit.policies.dark.shadow=true");

	@Test
	void countsMatchTheRequestsByPolicyAndOutcome() {
		this.runner.withBean(SimpleMeterRegistry.class).run((context) -> {
			SimpleMeterRegistry registry = context.getBean(SimpleMeterRegistry.class);
			RateLimitEnforcer enforcer = context.getBean(RateLimitEnforcer.class);
			PolicyDefinition api = context.getBean(RateLimitRegistry.class).find("api").orElseThrow();
			PolicyDefinition dark = context.getBean(RateLimitRegistry.class).find("dark").orElseThrow();
			for (int i = 0; i < 5; i++) {
				enforce(enforcer, api, "client-" + (i % 2), 1);
			}
			enforce(enforcer, dark, "client", 1);
			enforce(enforcer, dark, "client", 1);
			assertThat(registry).hasMeterWithNameAndTags(RateLimitMetrics.REQUESTS,
					io.micrometer.core.instrument.Tags.of("policy", "api", "outcome", "allowed"));
			assertThat(registry.get(RateLimitMetrics.REQUESTS).tags("policy", "api", "outcome", "allowed").counter()
				.count()).isEqualTo(5);
			enforce(enforcer, api, "client-0", 1);
			enforce(enforcer, api, "client-0", 1);
			assertThat(registry.get(RateLimitMetrics.REQUESTS).tags("policy", "api", "outcome", "denied").counter()
				.count()).isEqualTo(2);
			assertThat(registry.get(RateLimitMetrics.REQUESTS).tags("policy", "dark", "outcome", "shadow-denied")
				.counter()
				.count()).isEqualTo(1);
			// 7 decisions of "api", the last answered by the deny cache without a backend call
			assertThat(registry.get(RateLimitMetrics.LATENCY).tags("policy", "api").timer().count()).isEqualTo(6);
			assertThat(registry.getMeters()).allSatisfy((meter) -> assertThat(meter.getId().getTags())
				.extracting(io.micrometer.core.instrument.Tag::getKey)
				.isSubsetOf("policy", "plan", "outcome"));
			assertThat(Metrics.globalRegistry.find(RateLimitMetrics.REQUESTS).meters()).isEmpty();
		});
	}

	/**
	 * A policy with plans counts by plan, a bounded set (its plans' names, whatever the resolver answers); a policy
	 * without plans is tagged {@code none}.
	 */
	@Test
	void countsOfAPolicyWithPlansAreTaggedWithThePlan() {
		this.runner.withBean(SimpleMeterRegistry.class)
			.withPropertyValues("ratelimit.policies.orders.plan=expr:#key.startsWith('pro-') ? 'pro' : #key",
					"ratelimit.policies.orders.default-plan=free", "ratelimit.policies.orders.plans.free.limits=1/1h",
					"ratelimit.policies.orders.plans.pro.limits=100/1h")
			.run((context) -> {
				SimpleMeterRegistry registry = context.getBean(SimpleMeterRegistry.class);
				RateLimitEnforcer enforcer = context.getBean(RateLimitEnforcer.class);
				RateLimitRegistry policies = context.getBean(RateLimitRegistry.class);
				PolicyDefinition orders = policies.find("orders").orElseThrow();
				for (String key : List.of("pro-1", "pro-2", "pro-1", "free-1", "free-1", "gold",
						"x-" + UUID.randomUUID())) {
					PolicyPlan plan = orders.planForAsync(key, null).toCompletableFuture().join();
					enforce(enforcer, orders, plan, key, plan.cost());
				}
				enforce(enforcer, policies.find("api").orElseThrow(), "client", 1);
				assertThat(count(registry, "orders", "pro", "allowed")).isEqualTo(3);
				assertThat(count(registry, "orders", "free", "allowed")).isEqualTo(3);
				assertThat(count(registry, "orders", "free", "denied")).isEqualTo(1);
				assertThat(count(registry, "api", PolicyPlan.NO_PLAN_TAG, "allowed")).isEqualTo(1);
				assertThat(registry.find(RateLimitMetrics.REQUESTS).meters())
					.extracting((meter) -> meter.getId().getTag("plan"))
					.containsOnly("free", "pro", PolicyPlan.NO_PLAN_TAG);
			});
	}

	private static double count(SimpleMeterRegistry registry, String policy, String plan, String outcome) {
		return registry.get(RateLimitMetrics.REQUESTS)
			.tags("policy", policy, "plan", plan, "outcome", outcome)
			.counter()
			.count();
	}

	@Test
	void timedOutDecisionsAreCountedByPolicy() {
		this.runner.withBean(SimpleMeterRegistry.class).run((context) -> {
			SimpleMeterRegistry registry = context.getBean(SimpleMeterRegistry.class);
			RateLimitMetrics metrics = context.getBean(RateLimitMetrics.class);
			PolicyDefinition api = context.getBean(RateLimitRegistry.class).find("api").orElseThrow();
			metrics.timedOut(api);
			metrics.timedOut(api);
			assertThat(registry.get(RateLimitMetrics.TIMEOUTS).tags("policy", "api").counter().count()).isEqualTo(2);
			assertThat(registry.get(RateLimitMetrics.TIMEOUTS).counter().getId().getDescription())
				.contains("may still have consumed");
		});
	}

	@Test
	void noMeterRegistryMeansNoMetricsButLimitingStillWorks() {
		this.runner.run((context) -> {
			assertThat(context).doesNotHaveBean(RateLimitMetrics.class);
			PolicyDefinition api = context.getBean(RateLimitRegistry.class).find("api").orElseThrow();
			assertThat(enforce(context.getBean(RateLimitEnforcer.class), api, "client", 1).refused()).isFalse();
		});
	}

}
