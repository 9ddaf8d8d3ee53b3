package io.github.ratelimit.spring;

import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.core.Policy;
import io.github.ratelimit.core.resilience.CircuitBreaker;
import io.github.ratelimit.core.resilience.DenyCache;
import io.github.ratelimit.spring.observation.DefaultRateLimitObservationConvention;
import io.github.ratelimit.test.DecisionObservations;
import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every decision of the enforcer is a {@code ratelimit.decision} observation whose low-cardinality keys say the
 * policy, the plan, the backend and the outcome (as the {@code ratelimit.requests} metric names it), and never the
 * client's key.
 */
class RateLimitEnforcerObservationTests {

	private static final String CLIENT = "client-198.51.100.7";

	private final TestObservationRegistry observations = TestObservationRegistry.create();

	private final RateLimitEnforcerTests.FailingBackend backend = new RateLimitEnforcerTests.FailingBackend();

	private final RateLimitEnforcer enforcer = new RateLimitEnforcer(List.of(), this.backend, new CircuitBreaker(),
			new DenyCache(100, DenyCache.DEFAULT_MAX_AGE), 1);

	@Test
	void allowedDecisionIsObservedWithItsPolicyPlanBackendAndOutcome() {
		this.enforcer.observeWith(this.observations, null);
		enforce(policy("orders", FailureMode.OPEN, false));
		TestObservationRegistryAssert.assertThat(this.observations)
			.hasNumberOfObservationsWithNameEqualTo("ratelimit.decision", 1)
			.hasObservationWithNameEqualTo("ratelimit.decision")
			.that()
			.hasContextualNameEqualTo("ratelimit orders")
			.hasLowCardinalityKeyValue("policy", "orders")
			.hasLowCardinalityKeyValue("outcome", "allowed")
			.hasLowCardinalityKeyValue("backend", "failing")
			.hasLowCardinalityKeyValue("plan", "none")
			.hasBeenStarted()
			.hasBeenStopped()
			.doesNotHaveError();
	}

	@Test
	void refusalsAreObservedAsDeniedAlsoWhenTheDenyCacheAnswers() {
		this.enforcer.observeWith(this.observations, null);
		PolicyDefinition policy = policy("orders", FailureMode.OPEN, false);
		enforce(policy);
		enforce(policy);
		enforce(policy);
		assertOutcomes("allowed", "denied", "denied");
	}

	@Test
	void shadowRefusalIsObservedAsShadowDenied() {
		this.enforcer.observeWith(this.observations, null);
		PolicyDefinition policy = policy("dark", FailureMode.OPEN, true);
		enforce(policy);
		enforce(policy);
		assertOutcomes("allowed", "shadow-denied");
	}

	@Test
	void backendFailuresAreObservedAsTheirFailureModesOutcome() {
		this.enforcer.observeWith(this.observations, null);
		this.backend.failure = () -> new RateLimitEnforcerTests.BackendDown("connection refused");
		enforce(policy("open", FailureMode.OPEN, false));
		enforce(policy("closed", FailureMode.CLOSED, false));
		enforce(policy("local", FailureMode.LOCAL, false));
		assertOutcomes("failed-open", "failed-closed", "fallback");
	}

	@Test
	void clientKeyIsInNoKeyOfAnyObservation() {
		this.enforcer.observeWith(this.observations, null);
		PolicyDefinition policy = policy("orders", FailureMode.OPEN, false);
		enforce(policy);
		enforce(policy);
		TestObservationRegistryAssert.assertThat(this.observations).hasHandledContextsThatSatisfy((contexts) -> {
			assertThat(contexts).hasSize(2);
			for (Observation.Context context : contexts) {
				assertThat(context.getHighCardinalityKeyValues()).isEmpty();
				assertThat(keyValues(context.getLowCardinalityKeyValues()))
					.noneMatch((value) -> value.getValue().contains(CLIENT));
				assertThat(context.getContextualName()).doesNotContain(CLIENT);
			}
		});
	}

	@Test
	void conventionGivenReplacesTheDefaultOne() {
		this.enforcer.observeWith(this.observations, DecisionObservations.customConvention());
		enforce(policy("orders", FailureMode.OPEN, false));
		TestObservationRegistryAssert.assertThat(this.observations)
			.hasNumberOfObservationsWithNameEqualTo(DefaultRateLimitObservationConvention.NAME, 0)
			.hasObservationWithNameEqualTo("custom.decision")
			.that()
			.hasLowCardinalityKeyValue("limited-by", "orders");
	}

	@Test
	void decisionIsChildOfTheObservationInScopeWhenItStarts() {
		this.enforcer.observeWith(this.observations, null);
		Observation request = Observation.start("http.server.requests", this.observations);
		try (Observation.Scope scope = request.openScope()) {
			enforce(policy("orders", FailureMode.OPEN, false));
		}
		request.stop();
		TestObservationRegistryAssert.assertThat(this.observations)
			.hasObservationWithNameEqualTo("ratelimit.decision")
			.that()
			.hasParentObservationEqualTo(request);
	}

	@Test
	void decisionsAreNotObservedWithoutRegistryOrWithRegistryWithoutHandler() {
		PolicyDefinition policy = policy("orders", FailureMode.OPEN, false);
		assertThat(enforce(policy).kind()).isEqualTo(RateLimitOutcome.Kind.ALLOWED);
		ObservationRegistry withoutHandler = ObservationRegistry.create();
		withoutHandler.observationConfig().observationPredicate((name, context) -> {
			throw new AssertionError("observation " + name + " created with no handler to tell");
		});
		this.enforcer.observeWith(withoutHandler, null);
		assertThat(enforce(policy).kind()).isEqualTo(RateLimitOutcome.Kind.DENIED);
	}

	private RateLimitOutcome enforce(PolicyDefinition policy) {
		return this.enforcer.enforceAsync(policy, policy.defaultPlan(), CLIENT, 1).toCompletableFuture().orTimeout(10, TimeUnit.SECONDS).join();
	}

	private void assertOutcomes(String... outcomes) {
		TestObservationRegistryAssert.assertThat(this.observations).hasHandledContextsThatSatisfy((contexts) -> {
			assertThat(contexts).extracting((context) -> context.getLowCardinalityKeyValue("outcome").getValue())
				.containsExactly(outcomes);
		});
	}

	private static List<KeyValue> keyValues(KeyValues values) {
		return values.stream().toList();
	}

	private PolicyDefinition policy(String name, FailureMode failureMode, boolean shadow) {
		Policy policy = Policy.of(name, Algorithm.TOKEN_BUCKET, "1/1h");
		return PolicyDefinition.of(policy, this.backend.create(policy), "ip", (request) -> null, List.of(), List.of(),
				Set.of(), 1, failureMode, shadow);
	}

}
