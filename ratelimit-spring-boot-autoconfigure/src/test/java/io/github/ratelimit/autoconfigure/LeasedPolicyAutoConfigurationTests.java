package io.github.ratelimit.autoconfigure;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

import io.github.ratelimit.core.Limit;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.core.lease.LeaseSettings;
import io.github.ratelimit.core.lease.LeasedRateLimiter;
import io.github.ratelimit.spring.PolicyDefinition;
import io.github.ratelimit.spring.PolicyLeases;
import io.github.ratelimit.spring.RateLimitEnforcer;
import io.github.ratelimit.spring.RateLimitRegistry;
import io.github.ratelimit.spring.actuate.RateLimitsEndpoint;
import io.github.ratelimit.spring.actuate.RateLimitsEndpoint.LeaseReport;
import io.github.ratelimit.spring.metrics.RateLimitMetrics;
import io.github.ratelimit.test.Await;
import io.github.ratelimit.test.StartedWindow;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import static io.github.ratelimit.test.Decisions.enforce;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code ratelimit.policies.<name>.lease.*}: off by default, applied to every plan of a policy with its default batch
 * (1% of each plan's smallest capacity), checked at start-up naming the property, shown by the start-up line, the
 * metrics and the endpoint, and closed (unused fixed-window permits given back) when the application stops.
 */
class LeasedPolicyAutoConfigurationTests {

	private static final String HELLO = "ratelimit.policies.hello.";

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RateLimitRedisAutoConfiguration.class,
				RateLimitAutoConfiguration.class, RateLimitMetricsAutoConfiguration.class,
				RateLimitActuatorAutoConfiguration.class))
		.withPropertyValues("ratelimit.backend=in-memory", "management.endpoints.web.exposure.include=ratelimits",
				HELLO + "limits=1000/1h", "ratelimit.policies.exact.limits=1000/1h");

	@Test
	void aPolicyShouldNotLeaseUnlessItsLeaseIsEnabled() {
		this.runner.run((context) -> assertThat(hello(context).defaultPlan().limiter())
			.isNotInstanceOf(LeasedRateLimiter.class));
	}

	@Test
	void aLeasedPolicyShouldLeaseOnePercentOfItsSmallestCapacityForAtMostASecondByDefault() {
		this.runner.withPropertyValues(HELLO + "limits=1000/1h,50000/1d", HELLO + "lease.enabled=true")
			.run((context) -> assertThat(settings(hello(context).defaultPlan().limiter()))
				.isEqualTo(new LeaseSettings(10, true, Duration.ofSeconds(1))));
	}

	@Test
	void everyPlanOfALeasedPolicyShouldLeaseWithItsOwnDefaultBatch() {
		String plans = "ratelimit.policies.plans.";
		this.runner
			.withPropertyValues(plans + "plan=expr:#key.startsWith('pro-') ? 'pro' : 'free'",
					plans + "default-plan=free", plans + "plans.free.limits=300/1m", plans + "plans.pro.limits=5000/1m",
					plans + "lease.enabled=true", plans + "lease.adaptive=false", plans + "lease.max-age=500ms")
			.run((context) -> {
				PolicyDefinition hello = policy(context, "plans");
				assertThat(hello.plans()).extracting((plan) -> settings(plan.limiter()))
					.containsExactlyInAnyOrder(new LeaseSettings(3, false, Duration.ofMillis(500)),
							new LeaseSettings(50, false, Duration.ofMillis(500)));
				assertThat(context.getBean(RateLimitStartupLogger.class).describe(hello))
					.contains("free (300/1m, token-bucket, leased (batch 3, max-age 500ms), default)")
					.contains("pro (5000/1m, token-bucket, leased (batch 50, max-age 500ms))");
			});
	}

	@Test
	void aLeaseOfASlidingAlgorithmShouldFailStartUpNamingTheProperty() {
		assertInvalid(HELLO + "lease.enabled", "token-bucket, gcra or fixed-window", HELLO + "algorithm=sliding-log",
				HELLO + "limits=100/1h", HELLO + "lease.enabled=true");
		assertInvalid(HELLO + "lease.enabled", "token-bucket, gcra or fixed-window",
				HELLO + "algorithm=sliding-window", HELLO + "lease.enabled=true");
	}

	@Test
	void aBatchOutsideCostAndCapacityShouldFailStartUpNamingTheProperty() {
		assertInvalid(HELLO + "lease.batch", "between 1 and 1000", HELLO + "lease.enabled=true",
				HELLO + "lease.batch=0");
		assertInvalid(HELLO + "lease.batch", "between 1 and 1000", HELLO + "lease.enabled=true",
				HELLO + "lease.batch=1001");
		assertInvalid(HELLO + "lease.batch", "between 5 and 1000", HELLO + "lease.enabled=true", HELLO + "cost=5",
				HELLO + "lease.batch=4");
	}

	@Test
	void aMaximumAgeThatIsNotPositiveShouldFailStartUpNamingTheProperty() {
		assertInvalid(HELLO + "lease.max-age", "such as 1s", HELLO + "lease.enabled=true", HELLO + "lease.max-age=0s");
	}

	@Test
	void metricsAndTheEndpointShouldShowTheLeasesOfALeasedPolicy() {
		this.runner.withBean(SimpleMeterRegistry.class)
			.withPropertyValues(HELLO + "lease.enabled=true", HELLO + "lease.batch=10", HELLO + "lease.adaptive=false",
					HELLO + "lease.max-age=1h")
			.run((context) -> {
				RateLimitEnforcer enforcer = context.getBean(RateLimitEnforcer.class);
				for (int i = 0; i < 25; i++) {
					enforce(enforcer, hello(context), "client", 1);
				}
				SimpleMeterRegistry registry = context.getBean(SimpleMeterRegistry.class);
				// 3 renewals of 10 for 25 requests, and maybe more ahead of need (counted when started, its grant
				// added on a renewals' thread: wait until every renewal's permits are leased and in hand)
				Await.until(() -> {
					double started = registry.get(RateLimitMetrics.LEASE_RENEWALS).tag("policy", "hello")
						.functionCounter().count();
					return registry.get(RateLimitMetrics.LEASE_PERMITS).tags("policy", "hello", "state", "leased")
						.functionCounter().count() == 10 * started
							&& registry.get(RateLimitMetrics.LEASE_HELD).tag("policy", "hello").gauge()
								.value() == 10 * started - 25;
				});
				long renewals = (long) registry.get(RateLimitMetrics.LEASE_RENEWALS).tag("policy", "hello")
					.functionCounter().count();
				assertThat(renewals).isGreaterThanOrEqualTo(3);
				assertThat(registry.get(RateLimitMetrics.LEASE_PERMITS).tags("policy", "hello", "state", "expired")
					.functionCounter().count()).isZero();
				// every request not served by a renewal it waited for (the first, the 11th and the 21st unless
				// renewals ahead came before them) is a lease hit
				long hits = (long) registry.get(RateLimitMetrics.LEASE_HITS).tag("policy", "hello").functionCounter()
					.count();
				assertThat(hits).isBetween(22L, 24L);
				long waits = (long) registry.get(RateLimitMetrics.LEASE_WAITS).tag("policy", "hello").functionCounter()
					.count();
				assertThat(hits + waits).as("every request either a lease hit or waited for a renewal").isEqualTo(25);
				assertThat(registry.get(RateLimitMetrics.LEASE_HELD).tag("policy", "hello").gauge().value())
					.isEqualTo(10 * renewals - 25);
				assertThat(registry.get(RateLimitMetrics.LEASE_KEYS).tag("policy", "hello").gauge().value()).isEqualTo(1);
				LeaseReport lease = context.getBean(RateLimitsEndpoint.class).rateLimits().policies().get("hello")
					.lease();
				assertThat(lease).isEqualTo(
						new LeaseReport(10, false, "PT1H", renewals, 10 * renewals, 0, 0, hits, waits, 1,
								10 * renewals - 25));
				assertThat(context.getBean(RateLimitsEndpoint.class).rateLimits().policies().get("exact").lease())
					.isNull();
			});
	}

	@Test
	void stoppingTheApplicationShouldGiveBackTheUnusedPermitsOfAFixedWindow() {
		RateLimiter[] shared = new RateLimiter[1];
		// the in-memory backend's clock is the system's: a window begun on it now is the one given back to
		Limit window = StartedWindow.begunAt(ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now()), "1000/1h");
		this.runner
			.withPropertyValues(HELLO + "limits=" + window, HELLO + "algorithm=fixed-window",
					HELLO + "lease.enabled=true", HELLO + "lease.batch=10", HELLO + "lease.adaptive=false")
			.run((context) -> {
				enforce(context.getBean(RateLimitEnforcer.class), hello(context), "client", 1);
				shared[0] = ((LeasedRateLimiter) hello(context).defaultPlan().limiter()).delegate();
				assertThat(shared[0].peek("client").remaining()).isEqualTo(990);
				assertThat(context.getBean(PolicyLeases.class).find("hello").permitsHeld()).isEqualTo(9);
				((ConfigurableApplicationContext) context.getSourceApplicationContext()).close();
				assertThat(shared[0].peek("client").remaining()).as("the 9 unused permits given back").isEqualTo(999);
			});
	}

	private static PolicyDefinition hello(ApplicationContext context) {
		return policy(context, "hello");
	}

	private static PolicyDefinition policy(ApplicationContext context, String name) {
		return context.getBean(RateLimitRegistry.class).find(name).orElseThrow();
	}

	private static LeaseSettings settings(RateLimiter limiter) {
		assertThat(limiter).isInstanceOf(LeasedRateLimiter.class);
		return ((LeasedRateLimiter) limiter).settings();
	}

	private void assertInvalid(String property, String fix, String... properties) {
		this.runner.withPropertyValues(properties).run((context) -> {
			InvalidRateLimitConfigurationException invalid = InvalidConfiguration.of(context);
			assertThat(invalid.getProperty()).isEqualTo(property);
			FailureAnalysis analysis = new InvalidRateLimitConfigurationFailureAnalyzer()
				.analyze(context.getStartupFailure());
			assertThat(analysis).isNotNull();
			assertThat(analysis.getDescription()).contains(property);
			assertThat(analysis.getAction()).contains(fix);
		});
	}

}
