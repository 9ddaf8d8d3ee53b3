package io.github.ratelimit.operations;

import io.github.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.ratelimit.autoconfigure.RateLimitRedisAutoConfiguration;
import io.github.ratelimit.autoconfigure.RateLimitMetricsAutoConfiguration;
import io.github.ratelimit.spring.PolicyDefinition;
import io.github.ratelimit.spring.RateLimitEnforcer;
import io.github.ratelimit.spring.RateLimitRegistry;
import io.github.ratelimit.spring.metrics.RateLimitMetrics;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

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
				enforcer.enforce(api, "client-" + (i % 2), 1);
			}
			enforcer.enforce(dark, "client", 1);
			enforcer.enforce(dark, "client", 1);
			assertThat(registry).hasMeterWithNameAndTags(RateLimitMetrics.REQUESTS,
					io.micrometer.core.instrument.Tags.of("policy", "api", "outcome", "allowed"));
			assertThat(registry.get(RateLimitMetrics.REQUESTS).tags("policy", "api", "outcome", "allowed").counter()
				.count()).isEqualTo(5);
			enforcer.enforce(api, "client-0", 1);
			enforcer.enforce(api, "client-0", 1);
			assertThat(registry.get(RateLimitMetrics.REQUESTS).tags("policy", "api", "outcome", "denied").counter()
				.count()).isEqualTo(2);
			assertThat(registry.get(RateLimitMetrics.REQUESTS).tags("policy", "dark", "outcome", "shadow-denied")
				.counter()
				.count()).isEqualTo(1);
			// 7 decisions of "api", the last answered by the deny cache without a backend call
			assertThat(registry.get(RateLimitMetrics.LATENCY).tags("policy", "api").timer().count()).isEqualTo(6);
			assertThat(registry.getMeters()).allSatisfy((meter) -> assertThat(meter.getId().getTags())
				.extracting(io.micrometer.core.instrument.Tag::getKey)
				.isSubsetOf("policy", "outcome"));
			assertThat(Metrics.globalRegistry.find(RateLimitMetrics.REQUESTS).meters()).isEmpty();
		});
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
			assertThat(context.getBean(RateLimitEnforcer.class).enforce(api, "client", 1).refused()).isFalse();
		});
	}

}
