package io.github.ratelimit.autoconfigure;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.ratelimit.spring.IpKeys;
import io.github.ratelimit.spring.KeyResolver;
import io.github.ratelimit.spring.PlanResolver;
import io.github.ratelimit.spring.PolicyDefinition;
import io.github.ratelimit.spring.PolicyPlan;
import io.github.ratelimit.spring.RateLimitRegistry;
import io.github.ratelimit.test.TestRedisProperties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/**
 * Tests that invalid {@code ratelimit.*} configuration stops start-up with an exception, and a failure analysis,
 * naming the property and the fix.
 */
@ExtendWith(OutputCaptureExtension.class)
class RateLimitPropertiesValidationTests {

	private static final String PLAN_EXPRESSION = "expr:#key.startsWith('pro-') ? 'pro' : 'free'";

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RateLimitRedisAutoConfiguration.class, RateLimitAutoConfiguration.class))
		.withPropertyValues("ratelimit.backend=in-memory");

	@Test
	void policyWithoutLimitsShouldFailStartUp() {
		assertInvalid("ratelimit.policies.hello.limits", "at least one limit",
				"ratelimit.policies.hello.paths=/api/**");
	}

	@Test
	void limitThatIsNotCapacityPerPeriodShouldFailStartUp() {
		assertInvalid("ratelimit.policies.hello.limits[0]", "\"100/1m\"", "ratelimit.policies.hello.limits=lots");
	}

	@Test
	void limitWithZeroCapacityShouldFailStartUp() {
		assertInvalid("ratelimit.policies.hello.limits[0]", "\"100/1m\"", "ratelimit.policies.hello.limits=0/1m");
	}

	@Test
	void limitWithZeroPeriodShouldFailStartUp() {
		assertInvalid("ratelimit.policies.hello.limits[0]", "\"100/1m\"", "ratelimit.policies.hello.limits=5/0s");
	}

	@Test
	void limitWithNegativePeriodShouldFailStartUp() {
		assertInvalid("ratelimit.policies.hello.limits[0]", "\"100/1m\"", "ratelimit.policies.hello.limits=5/-1s");
	}

	@Test
	void limitObjectWithNegativePeriodShouldFailStartUp() {
		assertInvalid("ratelimit.policies.hello.limits[0]", "{capacity: 100, period: 1m}",
				"ratelimit.policies.hello.limits[0].capacity=5", "ratelimit.policies.hello.limits[0].period=-1s");
	}

	@Test
	void limitObjectWithZeroCapacityShouldFailStartUp() {
		assertInvalid("ratelimit.policies.hello.limits[0]", "{capacity: 100, period: 1m}",
				"ratelimit.policies.hello.limits[0].capacity=0", "ratelimit.policies.hello.limits[0].period=1m");
	}

	@Test
	void limitObjectWithoutPeriodShouldFailStartUp() {
		assertInvalid("ratelimit.policies.hello.limits[0]", "{capacity: 100, period: 1m}",
				"ratelimit.policies.hello.limits[0].capacity=5");
	}

	@Test
	void secondLimitWhenInvalidShouldBeNamedByItsIndex() {
		assertInvalid("ratelimit.policies.hello.limits[1]", "\"100/1m\"",
				"ratelimit.policies.hello.limits=5/1s,lots");
	}

	@Test
	void unknownAlgorithmShouldFailStartUpNamingTheProperty() {
		this.contextRunner
			.withPropertyValues("ratelimit.policies.x.limits=5/1s", "ratelimit.policies.x.algorithm=leaky")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure()).hasStackTraceContaining("ratelimit.policies.x.algorithm");
				assertThat(findCause(context.getStartupFailure(), BindException.class).getMessage())
					.contains("ratelimit.policies.x.algorithm");
			});
	}

	@Test
	void unknownDefaultAlgorithmShouldFailStartUpNamingTheProperty() {
		this.contextRunner.withPropertyValues("ratelimit.algorithm=leaky")
			.run((context) -> assertThat(findCause(context.getStartupFailure(), BindException.class).getMessage())
				.contains("ratelimit.algorithm"));
	}

	@Test
	void unknownKeyStrategyShouldFailStartUp() {
		assertInvalid("ratelimit.policies.hello.key", "header:<Name>", "ratelimit.policies.hello.limits=5/1s",
				"ratelimit.policies.hello.key=cookie:session");
	}

	@Test
	void keyStrategyWithAnUnexpectedArgumentShouldFailStartUp() {
		assertInvalid("ratelimit.policies.hello.key", "header:<Name>", "ratelimit.policies.hello.limits=5/1s",
				"ratelimit.policies.hello.key=ip:v6");
	}

	@Test
	void keyStrategyBeanWhenBeanIsMissingShouldFailStartUp() {
		assertInvalid("ratelimit.policies.hello.key", "bean:<KeyResolver bean>", "ratelimit.policies.hello.limits=5/1s",
				"ratelimit.policies.hello.key=bean:tenantKeys");
	}

	@Test
	void keyStrategyBeanWhenBeanIsNotAKeyResolverShouldFailStartUp() {
		this.contextRunner.withBean("tenantKeys", String.class, () -> "not a key resolver")
			.withPropertyValues("ratelimit.policies.hello.limits=5/1s", "ratelimit.policies.hello.key=bean:tenantKeys")
			.run((context) -> assertAnalysis(InvalidConfiguration.of(context), context.getStartupFailure(),
					"ratelimit.policies.hello.key", "bean:<KeyResolver bean>"));
	}

	@Test
	void keyStrategyBeanWhenBeanExistsShouldBeUsed() {
		KeyResolver tenants = (request) -> request.header("X-Tenant");
		this.contextRunner.withBean("tenantKeys", KeyResolver.class, () -> tenants)
			.withPropertyValues("ratelimit.policies.hello.limits=5/1s", "ratelimit.policies.hello.key=bean:tenantKeys")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void keyStrategyHeaderWithoutNameShouldFailStartUp() {
		assertInvalid("ratelimit.policies.hello.key", "header:<Name>", "ratelimit.policies.hello.limits=5/1s",
				"ratelimit.policies.hello.key=header:");
	}

	@Test
	void keyStrategyParamWithoutNameShouldFailStartUp() {
		assertInvalid("ratelimit.policies.hello.key", "param:<name>", "ratelimit.policies.hello.limits=5/1s",
				"ratelimit.policies.hello.key=param:");
	}

	@Test
	void keyStrategyExprWithInvalidSpelShouldFailStartUp() {
		assertInvalid("ratelimit.policies.hello.key", "expr:<SpEL>", "ratelimit.policies.hello.limits=5/1s",
				"ratelimit.policies.hello.key=expr:getHeader('X-Tenant'");
	}

	@Test
	void keyExpressionWithATypeReferenceShouldFailStartUp() {
		assertInvalid("ratelimit.policies.hello.key", "expr:<SpEL>", "ratelimit.policies.hello.limits=5/1s",
				"ratelimit.policies.hello.paths=/api/**",
				"ratelimit.policies.hello.key=expr:T(java.lang.Runtime).getRuntime().availableProcessors()");
	}

	@Test
	void pathThatIsNotAPathPatternShouldFailStartUp() {
		assertInvalid("ratelimit.policies.hello.paths[1]", "PathPattern", "ratelimit.policies.hello.limits=5/1s",
				"ratelimit.policies.hello.paths=/api/hello,/api/{id");
	}

	@Test
	void excludePathThatIsNotAPathPatternShouldFailStartUp() {
		assertInvalid("ratelimit.policies.hello.exclude-paths[0]", "PathPattern",
				"ratelimit.policies.hello.limits=5/1s", "ratelimit.policies.hello.paths=/api/**",
				"ratelimit.policies.hello.exclude-paths=/api/{id");
	}

	@Test
	void pathsWithoutALeadingSlashShouldApplyFromTheRootWithAWarningNamingTheProperty(CapturedOutput output) {
		this.contextRunner
			.withPropertyValues("ratelimit.policies.hello.limits=5/1s", "ratelimit.policies.hello.paths=api/ping",
					"ratelimit.policies.hello.exclude-paths=/api/health,api/ping/health")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				PolicyDefinition hello = context.getBean(RateLimitRegistry.class).find("hello").orElseThrow();
				assertThat(hello.paths()).containsExactly("/api/ping");
				assertThat(hello.excludePaths()).containsExactly("/api/health", "/api/ping/health");
				assertThat(output.getOut().lines().filter((line) -> line.contains(" WARN ")))
					.anySatisfy((line) -> assertThat(line)
						.contains("ratelimit.policies.hello.paths[0] is 'api/ping'", "applying it as '/api/ping'"))
					.anySatisfy((line) -> assertThat(line).contains(
							"ratelimit.policies.hello.exclude-paths[1] is 'api/ping/health'",
							"applying it as '/api/ping/health'"))
					.noneSatisfy((line) -> assertThat(line).contains("exclude-paths[0]"));
			});
	}

	@Test
	void emptyPathShouldFailStartUp() {
		assertInvalid("ratelimit.policies.hello.paths[1]", "/api/**", "ratelimit.policies.hello.limits=5/1s",
				"ratelimit.policies.hello.paths[0]=/api/hello", "ratelimit.policies.hello.paths[1]= ");
	}

	@Test
	void methodThatIsNotAnHttpMethodShouldFailStartUp() {
		assertInvalid("ratelimit.policies.hello.methods[1]", "GET", "ratelimit.policies.hello.limits=5/1s",
				"ratelimit.policies.hello.methods=GET,FETCH");
	}

	@Test
	void costBelowOneShouldFailStartUp() {
		assertInvalid("ratelimit.policies.hello.cost", "1 or more", "ratelimit.policies.hello.limits=5/1s",
				"ratelimit.policies.hello.cost=0");
	}

	@Test
	void costAboveTheSmallestCapacityShouldFailStartUp() {
		assertInvalid("ratelimit.policies.hello.cost", "raise the capacity",
				"ratelimit.policies.hello.limits=100/1h,5/1s", "ratelimit.policies.hello.cost=6");
	}

	@Test
	void costEqualToTheCapacityShouldBeAccepted() {
		this.contextRunner.withPropertyValues("ratelimit.policies.hello.limits=5/1s", "ratelimit.policies.hello.cost=5")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void unknownKeyUnderAPolicyShouldFailStartUpNamingThePolicyAndTheKey() {
		this.contextRunner
			.withPropertyValues("ratelimit.policies.hello.limits=5/1s", "ratelimit.policies.hello.path=/api/hello")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(findCause(context.getStartupFailure(), UnboundConfigurationPropertiesException.class)
					.getUnboundProperties()).extracting((property) -> property.getName().toString())
					.containsExactly("ratelimit.policies.hello.path");
			});
	}

	@Test
	void unknownKeyUnderRatelimitShouldFailStartUp() {
		this.contextRunner.withPropertyValues("ratelimit.failure-mod=closed")
			.run((context) -> assertThat(
					findCause(context.getStartupFailure(), UnboundConfigurationPropertiesException.class)
						.getUnboundProperties())
				.extracting((property) -> property.getName().toString())
				.containsExactly("ratelimit.failure-mod"));
	}

	@Test
	void fallbackInstancesBelowOneShouldFailStartUp() {
		assertInvalid("ratelimit.fallback.instances", "number of instances", "ratelimit.fallback.instances=0");
	}

	@Test
	void fallbackInstancesThatDivideACapacityBelowOnePermitShouldFailStartUpNamingBothProperties() {
		assertInvalid("ratelimit.fallback.instances", "ratelimit.policies.hello.limits[1]",
				"ratelimit.failure-mode=local", "ratelimit.fallback.instances=4",
				"ratelimit.policies.hello.limits=100/1h,3/1s");
	}

	@Test
	void fallbackInstancesThatDivideACapacityBelowTheCostShouldFailStartUpNamingBothProperties() {
		assertInvalid("ratelimit.fallback.instances", "ratelimit.policies.hello.cost", "ratelimit.fallback.instances=3",
				"ratelimit.policies.hello.failure-mode=local", "ratelimit.policies.hello.limits=10/1s",
				"ratelimit.policies.hello.cost=4");
	}

	@Test
	void fallbackInstancesThatLeaveEnoughForTheCostShouldBeAccepted() {
		this.contextRunner
			.withPropertyValues("ratelimit.failure-mode=local", "ratelimit.fallback.instances=3",
					"ratelimit.policies.hello.limits=12/1s", "ratelimit.policies.hello.cost=4")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void fallbackInstancesShouldNotMatterToPoliciesThatDoNotFallBackLocally() {
		this.contextRunner
			.withPropertyValues("ratelimit.fallback.instances=4", "ratelimit.policies.hello.limits=3/1s",
					"ratelimit.policies.hello.failure-mode=closed")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@ParameterizedTest
	@ValueSource(strings = { "ratelimit.in-memory.maximum-clients", "ratelimit.deny-cache.maximum-clients" })
	void maximumClientsBelowOneShouldFailStartUp(String property) {
		assertInvalid(property, "100000", property + "=0");
	}

	@Test
	void maximumOverridesBelowOneShouldFailStartUp() {
		assertInvalid("ratelimit.overrides.maximum", "10000", "ratelimit.overrides.maximum=0");
	}

	@ParameterizedTest
	@ValueSource(strings = { "0s", "-1s" })
	void overridesRefreshIntervalThatIsNotPositiveShouldFailStartUpOfTheRedisBackend(String interval) {
		this.contextRunner.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class))
			.withPropertyValues(TestRedisProperties.values())
			.withPropertyValues("ratelimit.backend=redis", "ratelimit.overrides.refresh-interval=" + interval)
			.run((context) -> assertAnalysis(InvalidConfiguration.of(context), context.getStartupFailure(),
					"ratelimit.overrides.refresh-interval", "500ms"));
	}

	@Test
	void negativeMaximumReconnectDelayShouldFailStartUp() {
		assertInvalid("ratelimit.redis.max-reconnect-delay", "0 to leave Lettuce",
				"ratelimit.redis.max-reconnect-delay=-1s");
	}

	@ParameterizedTest
	@ValueSource(strings = { "0", "101" })
	void circuitBreakerFailureRateThresholdOutsideAPercentageShouldFailStartUp(String threshold) {
		assertInvalid("ratelimit.circuit-breaker.failure-rate-threshold", "percentage",
				"ratelimit.circuit-breaker.failure-rate-threshold=" + threshold);
	}

	@Test
	void circuitBreakerWindowThatIsNotPositiveShouldFailStartUp() {
		assertInvalid("ratelimit.circuit-breaker.window", "1s", "ratelimit.circuit-breaker.window=0s");
	}

	@Test
	void circuitBreakerMinimumCallsBelowOneShouldFailStartUp() {
		assertInvalid("ratelimit.circuit-breaker.minimum-calls", "10", "ratelimit.circuit-breaker.minimum-calls=0");
	}

	@Test
	void circuitBreakerOpenDurationThatIsNotPositiveShouldFailStartUp() {
		assertInvalid("ratelimit.circuit-breaker.open-duration", "1s", "ratelimit.circuit-breaker.open-duration=-1s");
	}

	@ParameterizedTest
	@ValueSource(strings = { "0s", "-1ms" })
	void timeoutThatIsNotPositiveShouldFailStartUp(String timeout) {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
					RateLimitRedisAutoConfiguration.class, RateLimitAutoConfiguration.class))
			.withPropertyValues(TestRedisProperties.values())
			.withPropertyValues("ratelimit.timeout=" + timeout)
			.run((context) -> assertAnalysis(InvalidConfiguration.of(context), context.getStartupFailure(),
					"ratelimit.timeout", "100ms"));
	}

	@ParameterizedTest
	@ValueSource(ints = { 0, 33, -1 })
	void ipv4PrefixLengthOutOfRangeShouldFailStartUp(int length) {
		assertInvalid("ratelimit.ip.ipv4-prefix-length", "between 1 and 32",
				"ratelimit.ip.ipv4-prefix-length=" + length);
	}

	@ParameterizedTest
	@ValueSource(ints = { 0, 129 })
	void ipv6PrefixLengthOutOfRangeShouldFailStartUp(int length) {
		assertInvalid("ratelimit.ip.ipv6-prefix-length", "between 1 and 128",
				"ratelimit.ip.ipv6-prefix-length=" + length);
	}

	@Test
	void ipPrefixLengthsShouldGroupClientAddresses() {
		this.contextRunner
			.withPropertyValues("ratelimit.ip.ipv4-prefix-length=24", "ratelimit.ip.ipv6-prefix-length=48")
			.run((context) -> {
				IpKeys ipKeys = context.getBean(IpKeys.class);
				assertThat(ipKeys.keyOf("203.0.113.7")).isEqualTo("203.0.113.0/24");
				assertThat(ipKeys.keyOf("2001:db8:1:2::7")).isEqualTo("2001:db8:1::/48");
			});
	}

	@Test
	void policyNameWithBracesShouldFailStartUp() {
		assertInvalid("ratelimit.policies.a{b}", "'{' or '}'", "ratelimit.policies[a{b}].limits=5/1s");
	}

	@Test
	void policyWithPlansAndLimitsOfItsOwnShouldFailStartUp() {
		assertInvalid("ratelimit.policies.orders.limits", "move the limits into a plan",
				plans("ratelimit.policies.orders.limits=5/1s"));
	}

	@Test
	void policyWithPlansButNoPlanStrategyShouldFailStartUp() {
		assertInvalid("ratelimit.policies.orders.plan", "bean:<PlanResolver bean> or expr:<SpEL>",
				"ratelimit.policies.orders.default-plan=free", "ratelimit.policies.orders.plans.free.limits=10/1m");
	}

	@ParameterizedTest
	@ValueSource(strings = { "principal-authority:PLAN_", "bean:", "expr:", "tier" })
	void unknownPlanStrategyShouldFailStartUp(String strategy) {
		assertInvalid("ratelimit.policies.orders.plan", "bean:<PlanResolver bean> or expr:<SpEL",
				plans("ratelimit.policies.orders.plan=" + strategy));
	}

	@Test
	void planStrategyBeanWhenBeanIsMissingShouldFailStartUp() {
		this.contextRunner.withPropertyValues(plans("ratelimit.policies.orders.plan=bean:orderPlans"))
			.run((context) -> {
				InvalidRateLimitConfigurationException invalid = InvalidConfiguration.of(context);
				assertAnalysis(invalid, context.getStartupFailure(), "ratelimit.policies.orders.plan",
						"bean:<PlanResolver bean>");
				assertThat(invalid).hasMessageContaining("names no PlanResolver bean 'orderPlans'");
			});
	}

	@Test
	void planStrategyBeanWhenBeanIsNotAPlanResolverShouldFailStartUp() {
		this.contextRunner.withBean("orderPlans", KeyResolver.class, () -> (request) -> "free")
			.withPropertyValues(plans("ratelimit.policies.orders.plan=bean:orderPlans"))
			.run((context) -> assertAnalysis(InvalidConfiguration.of(context), context.getStartupFailure(),
					"ratelimit.policies.orders.plan", "bean:<PlanResolver bean>"));
	}

	@Test
	void planStrategyBeanWhenBeanExistsShouldBeUsed() {
		PlanResolver resolver = (key, request) -> "pro";
		this.contextRunner.withBean("orderPlans", PlanResolver.class, () -> resolver)
			.withPropertyValues(plans("ratelimit.policies.orders.plan=bean:orderPlans"))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				PolicyDefinition orders = context.getBean(RateLimitRegistry.class).find("orders").orElseThrow();
				assertThat(orders.planForAsync("anyone", null).toCompletableFuture().join().plan()).isEqualTo("pro");
			});
	}

	@Test
	void planExpressionThatIsNotSpelShouldFailStartUp() {
		assertInvalid("ratelimit.policies.orders.plan", "expr:<SpEL",
				plans("ratelimit.policies.orders.plan=expr:#key.startsWith('pro-' ? 'pro'"));
	}

	@Test
	void policyWithPlansButNoDefaultPlanShouldFailStartUp() {
		assertInvalid("ratelimit.policies.orders.default-plan", "ratelimit.policies.orders.default-plan to the plan",
				"ratelimit.policies.orders.plan=" + PLAN_EXPRESSION,
				"ratelimit.policies.orders.plans.free.limits=10/1m");
	}

	@Test
	void defaultPlanThatIsNotAPlanShouldFailStartUp() {
		this.contextRunner.withPropertyValues(plans("ratelimit.policies.orders.default-plan=gold"))
			.run((context) -> {
				InvalidRateLimitConfigurationException invalid = InvalidConfiguration.of(context);
				assertAnalysis(invalid, context.getStartupFailure(), "ratelimit.policies.orders.default-plan",
						"the plan of clients the plan strategy names none for");
				assertThat(invalid).hasMessageContaining("'gold' is not one of the plans [free, pro]");
			});
	}

	@ParameterizedTest
	@ValueSource(strings = { "pro plus", "pro.plus", "pro{plus}", "Pro!" })
	void planNameOtherThanLettersDigitsDashesAndUnderscoresShouldFailStartUp(String name) {
		assertInvalid("ratelimit.policies.orders.plans." + name, "letters, digits, '-' and '_' only",
				plans("ratelimit.policies.orders.plans[" + name + "].limits=1000/1m"));
	}

	@Test
	void planNamedOverrideShouldFailStartUp() {
		assertInvalid("ratelimit.policies.orders.plans.override", "other than 'override'",
				plans("ratelimit.policies.orders.plans.override.limits=1000/1m"));
	}

	@Test
	void planWithoutLimitsShouldFailStartUp() {
		assertInvalid("ratelimit.policies.orders.plans.gold.limits", "at least one limit",
				plans("ratelimit.policies.orders.plans.gold.cost=1"));
	}

	@Test
	void planWithAnInvalidLimitShouldFailStartUpNamingThePlansLimit() {
		assertInvalid("ratelimit.policies.orders.plans.pro.limits[1]", "\"100/1m\"",
				plans("ratelimit.policies.orders.plans.pro.limits=100/1m,lots"));
	}

	@Test
	void planWithALimitBeyondItsAlgorithmsBoundsShouldFailStartUpNamingThePlan() {
		assertInvalid("ratelimit.policies.orders.plans.pro", "within the bounds of the policy's algorithm",
				plans("ratelimit.policies.orders.plans.pro.algorithm=sliding-log",
						"ratelimit.policies.orders.plans.pro.limits=501/1m"));
	}

	@Test
	void planCostAboveItsCapacityShouldFailStartUpNamingThePlansCost() {
		assertInvalid("ratelimit.policies.orders.plans.free.cost", "lower the cost or raise the capacity",
				plans("ratelimit.policies.orders.plans.free.cost=11"));
	}

	@Test
	void planCostBelowOneShouldFailStartUp() {
		assertInvalid("ratelimit.policies.orders.plans.pro.cost", "a cost of 1 or more",
				plans("ratelimit.policies.orders.plans.pro.cost=0"));
	}

	@Test
	void policyCostAboveAPlansCapacityShouldFailStartUpNamingThePolicysCost() {
		assertInvalid("ratelimit.policies.orders.cost", "lower the cost or raise the capacity",
				plans("ratelimit.policies.orders.cost=20"));
	}

	@Test
	void planCostUpToItsOwnCapacityShouldBeAccepted() {
		this.contextRunner
			.withPropertyValues(plans("ratelimit.policies.orders.plans.free.cost=10",
					"ratelimit.policies.orders.plans.pro.cost=50"))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				PolicyDefinition orders = context.getBean(RateLimitRegistry.class).find("orders").orElseThrow();
				assertThat(orders.plans()).extracting(PolicyPlan::plan, PolicyPlan::cost)
					.containsExactly(tuple("free", 10L), tuple("pro", 50L));
			});
	}

	@Test
	void planStrategyWithoutPlansShouldFailStartUp() {
		assertInvalid("ratelimit.policies.orders.plan", "declare ratelimit.policies.orders.plans",
				"ratelimit.policies.orders.limits=5/1s", "ratelimit.policies.orders.plan=" + PLAN_EXPRESSION);
	}

	@Test
	void defaultPlanWithoutPlansShouldFailStartUp() {
		assertInvalid("ratelimit.policies.orders.default-plan", "declare ratelimit.policies.orders.plans",
				"ratelimit.policies.orders.limits=5/1s", "ratelimit.policies.orders.default-plan=free");
	}

	/**
	 * A valid policy {@code orders} with plans {@code free} (10/1m, the default) and {@code pro} (100/1m), picked by
	 * an expression, and more properties that replace or add to these.
	 */
	private static String[] plans(String... more) {
		Map<String, String> properties = new LinkedHashMap<>();
		for (String property : List.of("ratelimit.policies.orders.plan=" + PLAN_EXPRESSION,
				"ratelimit.policies.orders.default-plan=free", "ratelimit.policies.orders.plans.free.limits=10/1m",
				"ratelimit.policies.orders.plans.pro.limits=100/1m")) {
			properties.put(property.substring(0, property.indexOf('=')), property);
		}
		for (String property : more) {
			properties.put(property.substring(0, property.indexOf('=')), property);
		}
		return properties.values().toArray(String[]::new);
	}

	private void assertInvalid(String property, String fix, String... properties) {
		this.contextRunner.withPropertyValues(properties)
			.run((context) -> assertAnalysis(InvalidConfiguration.of(context), context.getStartupFailure(), property,
					fix));
	}

	private static void assertAnalysis(InvalidRateLimitConfigurationException invalid, Throwable failure,
			String property, String fix) {
		assertThat(invalid.getProperty()).isEqualTo(property);
		assertThat(invalid).hasMessageContaining(property);
		FailureAnalysis analysis = new InvalidRateLimitConfigurationFailureAnalyzer().analyze(failure);
		assertThat(analysis).isNotNull();
		assertThat(analysis.getDescription()).contains(property);
		assertThat(analysis.getAction()).contains(property).contains(fix);
		assertThat(analysis.getCause()).isSameAs(invalid);
	}

	private static <T extends Throwable> T findCause(Throwable failure, Class<T> type) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (type.isInstance(cause)) {
				return type.cast(cause);
			}
		}
		throw new AssertionError("No " + type.getSimpleName() + " caused " + failure, failure);
	}

}
