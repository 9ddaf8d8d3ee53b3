package io.github.ratelimit.spring;

import java.time.Duration;

import io.github.ratelimit.core.wait.PermitQueues;

/**
 * Told of every outcome the {@link RateLimitEnforcer} reaches: counts, metrics.
 */
@FunctionalInterface
public interface RateLimitRecorder {

	/**
	 * Records one outcome.
	 * @param outcome the outcome
	 * @param backendNanos how long the backend call took, or a negative value when no backend was called
	 */
	void record(RateLimitOutcome outcome, long backendNanos);

	/**
	 * Records that a policy's backend call timed out: the request got its failure mode's outcome (recorded as
	 * usual), and the call may still have been carried out, and consumed permits, after the caller stopped waiting.
	 * @param policy the policy
	 */
	default void timedOut(PolicyDefinition policy) {
	}

	/**
	 * Records that the backend's answer to a call that timed out came after all, and refused the request its policy's
	 * failure mode had admitted (failed open, or admitted by the local fallback): what failing open cost.
	 * @param outcome the failure mode's outcome, recorded when it was reached
	 */
	default void refusedLate(RateLimitOutcome outcome) {
	}

	/**
	 * Records that a request of a policy that may wait ({@code max-wait}) began: it is a waiter until
	 * {@link #waitEnded}.
	 * @param policy the policy
	 */
	default void waitStarted(PolicyDefinition policy) {
	}

	/**
	 * Records how a request of a policy that may wait ended, and how long it waited (zero or about when admitted at
	 * once).
	 * @param policy the policy
	 * @param waited how long it waited
	 * @param ending how it ended
	 */
	default void waitEnded(PolicyDefinition policy, Duration waited, PermitQueues.Ending ending) {
	}

	/**
	 * Records a permit granted to a waiting request that had given up (out of time, interrupted or cancelled while
	 * its call was in flight) and that no request waiting behind it could take: taken from the limit and not used.
	 * @param admission the outcome that granted it
	 */
	default void waitAbandoned(RateLimitOutcome admission) {
	}

}
