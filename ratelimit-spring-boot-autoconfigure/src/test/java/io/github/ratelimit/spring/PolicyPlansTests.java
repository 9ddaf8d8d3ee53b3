package io.github.ratelimit.spring;

import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.core.Limit;
import io.github.ratelimit.core.Policy;
import io.github.ratelimit.core.memory.InMemoryRateLimiterBackend;
import io.github.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.ratelimit.autoconfigure.RateLimitRedisAutoConfiguration;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for picking a client's plan ({@link PolicyDefinition#planFor}, {@link PolicyDefinition#planForAsync}): what
 * the strategy names, else the default plan, whatever goes wrong, each kind of trouble logged once per policy.
 */
@ExtendWith(OutputCaptureExtension.class)
class PolicyPlansTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RateLimitRedisAutoConfiguration.class, RateLimitAutoConfiguration.class))
		.withPropertyValues("ratelimit.backend=in-memory")
		.withPropertyValues(plans("tiers", "expr:#key.startsWith('pro-') ? 'pro' : #key.substring(100)"))
		.withPropertyValues(plans("customers", "bean:customerPlans"))
		.withBean("customerPlans", PlanResolver.class, CustomerPlans::new);

	@Test
	void expressionShouldPickThePlanFromTheKeyOutsideARequest() {
		this.contextRunner.run((context) -> {
			assertThat(plan(context, "tiers", "pro-1")).isEqualTo("pro");
			assertThat(planAsync(context, "tiers", "pro-1")).isEqualTo("pro");
		});
	}

	@Test
	void expressionThatFailsShouldGiveTheDefaultPlanLoggingOnce(CapturedOutput output) {
		this.contextRunner.run((context) -> {
			assertThat(plan(context, "tiers", "short")).isEqualTo("free");
			assertThat(plan(context, "tiers", "short")).isEqualTo("free");
			assertThat(planAsync(context, "tiers", "short")).isEqualTo("free");
			assertThat(output.getOut().split("failed on a request, which gets the default plan", -1)).hasSize(2);
		});
	}

	@Test
	void resolverShouldPickThePlanItNames() {
		this.contextRunner.run((context) -> {
			assertThat(plan(context, "customers", "pro")).isEqualTo("pro");
			assertThat(planAsync(context, "customers", "pro")).isEqualTo("pro");
			assertThat(plan(context, "customers", "free")).isEqualTo("free");
		});
	}

	@Test
	void resolverThatNamesNoPlanShouldGiveTheDefaultPlan() {
		this.contextRunner.run((context) -> {
			assertThat(plan(context, "customers", "nobody")).isEqualTo("free");
			assertThat(planAsync(context, "customers", "nobody")).isEqualTo("free");
		});
	}

	@Test
	void resolverThatNamesAPlanThePolicyLacksShouldGiveTheDefaultPlanWarningOnce(CapturedOutput output) {
		this.contextRunner.run((context) -> {
			assertThat(plan(context, "customers", "gold")).isEqualTo("free");
			assertThat(planAsync(context, "customers", "gold")).isEqualTo("free");
			assertThat(output.getOut().split("named a plan it does not have, 'gold'; the default plan 'free' applies",
					-1)).hasSize(2);
		});
	}

	@Test
	void resolverThatThrowsShouldGiveTheDefaultPlanLoggingAnErrorOnce(CapturedOutput output) {
		this.contextRunner.run((context) -> {
			assertThat(plan(context, "customers", "boom")).isEqualTo("free");
			assertThat(plan(context, "customers", "boom")).isEqualTo("free");
			assertThat(planAsync(context, "customers", "boom")).isEqualTo("free");
			assertThat(output.getOut().lines().filter((line) -> line.contains("failed; the default plan 'free'")))
				.singleElement()
				.asString()
				.contains(" ERROR ");
		});
	}

	@Test
	void resolverWhoseAnswerFailsLaterShouldGiveTheDefaultPlan() {
		this.contextRunner
			.run((context) -> assertThat(planAsync(context, "customers", "later-boom")).isEqualTo("free"));
	}

	@Test
	void thePlanOfAPolicyWithoutPlansIsSharedButNoCallerCanChangeItForTheOthers() {
		Policy own = new Policy("own", Algorithm.TOKEN_BUCKET, List.of(Limit.parse("5/1m")));
		Policy other = new Policy("other", Algorithm.TOKEN_BUCKET, List.of(Limit.parse("5/1m")));
		InMemoryRateLimiterBackend backend = new InMemoryRateLimiterBackend();
		PolicyDefinition policy = PolicyDefinition.of(own, backend.create(own), "ip", RequestKeyResolvers.ip(),
				List.of(), List.of(), Set.of(), 1, FailureMode.OPEN, false);
		CompletableFuture<PolicyPlan> first = policy.planForAsync("a", null).toCompletableFuture();
		first.obtrudeValue(new PolicyPlan(other, backend.create(other), 1));
		assertThat(policy.planForAsync("b", null).toCompletableFuture().join()).isSameAs(policy.defaultPlan());
	}

	@Test
	void plansShouldKeepTheirConfiguredOrderAndTheDefaultPlanShouldDecideBeforeOneIsPicked() {
		this.contextRunner.run((context) -> {
			PolicyDefinition customers = policy(context, "customers");
			assertThat(customers.plans()).extracting(PolicyPlan::plan).containsExactly("free", "pro");
			assertThat(customers.planStrategy()).isEqualTo("bean:customerPlans");
			assertThat(customers.defaultPlan().plan()).isEqualTo("free");
			assertThat(customers.planForAsync("pro", null).toCompletableFuture().join().plan()).isEqualTo("pro");
		});
	}

	private static String[] plans(String policy, String strategy) {
		String prefix = "ratelimit.policies." + policy + ".";
		return new String[] { prefix + "plan=" + strategy, prefix + "default-plan=free",
				prefix + "plans.free.limits=10/1m", prefix + "plans.pro.limits=100/1m" };
	}

	private static PolicyDefinition policy(ApplicationContext context, String name) {
		return context.getBean(RateLimitRegistry.class).find(name).orElseThrow();
	}

	private static @Nullable String plan(ApplicationContext context, String policy, String key) {
		return policy(context, policy).planForAsync(key, null).toCompletableFuture().join().plan();
	}

	private static @Nullable String planAsync(ApplicationContext context, String policy, String key)
			throws Exception {
		return policy(context, policy).planForAsync(key, null).toCompletableFuture().get(10, TimeUnit.SECONDS).plan();
	}

	/**
	 * Names the plan a key names, throws for {@code boom}, and fails asynchronously for {@code later-boom}.
	 */
	static class CustomerPlans implements PlanResolver {

		@Override
		public @Nullable String resolvePlan(String key, @Nullable RateLimitRequest request) {
			if (key.equals("boom")) {
				throw new IllegalStateException("The customer table is down");
			}
			return key.equals("nobody") ? null : key;
		}

		@Override
		public CompletionStage<@Nullable String> resolvePlanAsync(String key, @Nullable RateLimitRequest request) {
			if (key.equals("later-boom")) {
				return CompletableFuture.failedFuture(new UnsupportedOperationException("No customer service"));
			}
			return PlanResolver.super.resolvePlanAsync(key, request);
		}

	}

}
