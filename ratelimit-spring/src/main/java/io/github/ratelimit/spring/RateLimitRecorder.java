package io.github.ratelimit.spring;

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

}
