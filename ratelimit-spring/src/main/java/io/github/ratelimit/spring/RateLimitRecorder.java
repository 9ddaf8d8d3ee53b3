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

}
