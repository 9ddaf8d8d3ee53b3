package io.github.ratelimit.autoconfigure;

import io.github.ratelimit.spring.PolicyDefinition;
import io.github.ratelimit.spring.RateLimitEnforcer;
import io.github.ratelimit.spring.RateLimitRegistry;
import io.github.ratelimit.spring.observation.RateLimitObservationContext;
import io.github.ratelimit.spring.observation.RateLimitObservationConvention;
import io.github.ratelimit.test.DecisionObservations;
import io.github.ratelimit.test.TestRedisProperties;
import io.micrometer.observation.Observation;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.observation.LettuceObservationAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static io.github.ratelimit.test.Decisions.enforce;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Decisions observed on the application's {@code ObservationRegistry} as Boot configures it, on a real Redis whose
 * Lettuce commands Boot observes too: each command a child of its decision, the decision a child of the observation
 * in scope (a servlet request's), a user's convention bean, and Boot's switch to turn the observation off.
 */
class RateLimitObservationAutoConfigurationTests {

	private static final String CLIENT = "client-203.0.113.9";

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ObservationAutoConfiguration.class,
				LettuceObservationAutoConfiguration.class, DataRedisAutoConfiguration.class,
				RateLimitRedisAutoConfiguration.class, RateLimitAutoConfiguration.class))
		.withBean(TestObservationRegistry.class, TestObservationRegistry::create)
		.withPropertyValues(TestRedisProperties.values())
		.withPropertyValues("ratelimit.policies.orders.limits=5/1m", "ratelimit.observations.enabled=true");

	@Test
	void redisCommandIsChildOfDecisionWhichIsChildOfTheRequest() {
		this.contextRunner.run((context) -> {
			TestObservationRegistry observations = context.getBean(TestObservationRegistry.class);
			observations.clear();
			Observation request = Observation.start("http.server.requests", observations);
			try (Observation.Scope scope = request.openScope()) {
				decide(context);
			}
			request.stop();
			TestObservationRegistryAssert.assertThat(observations)
				.hasObservationWithNameEqualTo("ratelimit.decision")
				.that()
				.hasParentObservationEqualTo(request)
				.hasLowCardinalityKeyValue("policy", "orders")
				.hasLowCardinalityKeyValue("outcome", "allowed")
				.hasLowCardinalityKeyValue("backend", "redis")
				.hasLowCardinalityKeyValue("plan", "none");
			DecisionObservations.assertRedisCommandIsChildOfDecision(observations);
		});
	}

	@Test
	void clientKeyIsInNoObservationNorRedisCommandKey() {
		this.contextRunner.run((context) -> {
			context.getBean(TestObservationRegistry.class).clear();
			decide(context);
			TestObservationRegistry observations = context.getBean(TestObservationRegistry.class);
			TestObservationRegistryAssert.assertThat(observations).hasHandledContextsThatSatisfy((contexts) -> {
				assertThat(contexts).filteredOn(RateLimitObservationContext.class::isInstance).hasSize(1);
				for (Observation.Context observed : contexts) {
					assertThat(observed.getAllKeyValues().stream())
						.noneMatch((value) -> value.getValue().contains(CLIENT));
				}
			});
		});
	}

	@Test
	void conventionBeanReplacesTheDefaultOne() {
		this.contextRunner.withBean(RateLimitObservationConvention.class, DecisionObservations::customConvention)
			.run((context) -> {
				decide(context);
				TestObservationRegistryAssert.assertThat(context.getBean(TestObservationRegistry.class))
					.hasNumberOfObservationsWithNameEqualTo("ratelimit.decision", 0)
					.hasObservationWithNameEqualTo("custom.decision")
					.that()
					.hasLowCardinalityKeyValue("limited-by", "orders");
			});
	}

	@Test
	void decisionsAreNotObservedUnlessTurnedOn() {
		this.contextRunner.withPropertyValues("ratelimit.observations.enabled=false")
			.run(RateLimitObservationAutoConfigurationTests::decidesUnobserved);
		assertThat(new RateLimitProperties().getObservations().isEnabled()).as("ratelimit.observations.enabled by default")
			.isFalse();
	}

	@Test
	void bootsObservationSwitchTurnsDecisionsOff() {
		this.contextRunner.withPropertyValues("management.observations.enable.ratelimit.decision=false")
			.run(RateLimitObservationAutoConfigurationTests::decidesUnobserved);
	}

	/**
	 * Decides, and asserts that the decision was not observed while Lettuce's command was.
	 */
	private static void decidesUnobserved(AssertableApplicationContext context) {
		decide(context);
		TestObservationRegistryAssert.assertThat(context.getBean(TestObservationRegistry.class))
			.hasNumberOfObservationsWithNameEqualTo("ratelimit.decision", 0)
			.hasHandledContextsThatSatisfy((contexts) -> assertThat(contexts).as("Lettuce's commands, still observed")
				.isNotEmpty()
				.noneMatch(RateLimitObservationContext.class::isInstance));
	}

	private static void decide(AssertableApplicationContext context) {
		PolicyDefinition orders = context.getBean(RateLimitRegistry.class).find("orders").orElseThrow();
		assertThat(enforce(context.getBean(RateLimitEnforcer.class), orders, CLIENT, 1).decision().allowed()).isTrue();
	}

}
