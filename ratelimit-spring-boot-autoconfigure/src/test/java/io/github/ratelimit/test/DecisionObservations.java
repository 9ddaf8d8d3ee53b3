package io.github.ratelimit.test;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.github.ratelimit.spring.observation.RateLimitObservationContext;
import io.github.ratelimit.spring.observation.RateLimitObservationConvention;
import io.lettuce.core.tracing.LettuceObservationContext;
import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Assertions and a convention of the tests of decisions' observations.
 */
public final class DecisionObservations {

	private DecisionObservations() {
	}

	/**
	 * Asserts that the one Redis command observed with a parent is an {@code EVALSHA} whose parent is a decision.
	 * Commands the overrides store sends from its own thread meanwhile have no parent, and are left out.
	 * @param observations the registry that observed the decision
	 */
	public static void assertRedisCommandIsChildOfDecision(TestObservationRegistry observations) {
		// Lettuce stops a command's observation (which names it) just after completing the command, so the caller
		// may see the decision before the command's observation is stopped: wait for it (generously)
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (true) {
			try {
				assertRedisCommandIsChildOfDecisionNow(observations);
				return;
			}
			catch (AssertionError ex) {
				if (System.nanoTime() > deadline) {
					throw ex;
				}
				LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
			}
		}
	}

	private static void assertRedisCommandIsChildOfDecisionNow(TestObservationRegistry observations) {
		TestObservationRegistryAssert.assertThat(observations).hasHandledContextsThatSatisfy((contexts) -> {
			List<Observation.Context> children = contexts.stream()
				.filter(LettuceObservationContext.class::isInstance)
				.filter((command) -> command.getParentObservation() != null)
				.toList();
			assertThat(children).as("Redis commands with a parent").singleElement().satisfies((command) -> {
				assertThat(command.getContextualName()).isEqualTo("evalsha");
				assertThat(command.getParentObservation().getContextView())
					.isInstanceOf(RateLimitObservationContext.class);
			});
		});
	}

	/**
	 * A user's convention: observations named {@code custom.decision} with the one key {@code limited-by}, the
	 * policy's name.
	 * @return the convention
	 */
	public static RateLimitObservationConvention customConvention() {
		return new RateLimitObservationConvention() {

			@Override
			public String getName() {
				return "custom.decision";
			}

			@Override
			public KeyValues getLowCardinalityKeyValues(RateLimitObservationContext context) {
				return KeyValues.of("limited-by", context.getPolicy());
			}

		};
	}

}
