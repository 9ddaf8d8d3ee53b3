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

}
