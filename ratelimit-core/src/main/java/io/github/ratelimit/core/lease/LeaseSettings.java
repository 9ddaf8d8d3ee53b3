package io.github.ratelimit.core.lease;

import java.time.Duration;

/**
 * How a policy's permits are leased.
 *
 * @param batch the most permits one lease takes, at least 1 (a leased limiter takes at most the policy's smallest
 * capacity whatever this says)
 * @param adaptive whether a lease takes fewer than {@code batch} permits when the instance's own recent rate of
 * requests for the key would not use them within half the maximum age
 * @param maxAge how long a lease's permits may be handed out after they were taken, positive; a fixed window's lease
 * also ends with the window it was taken in
 */
public record LeaseSettings(long batch, boolean adaptive, Duration maxAge) {

	/**
	 * Creates settings, validating them.
	 * @param batch the most permits one lease takes
	 * @param adaptive whether the batch adapts to the instance's recent rate
	 * @param maxAge the lease's maximum age
	 * @throws IllegalArgumentException when the batch is below 1 or the maximum age is not positive
	 */
	public LeaseSettings {
		if (batch < 1) {
			throw new IllegalArgumentException("Lease batch must be at least 1, was " + batch);
		}
		if (maxAge == null || maxAge.isZero() || maxAge.isNegative()) {
			throw new IllegalArgumentException("Lease max-age must be positive, was " + maxAge);
		}
	}

}
