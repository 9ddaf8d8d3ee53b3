package io.github.ratelimit.core;

/**
 * The answer to a request for a lease ({@link RateLimiter#tryLeaseAsync(String, long, long)}): the permits taken
 * from the shared state in one atomic call, to be handed out by their holder.
 *
 * @param granted the permits taken, between the minimum and the maximum asked for; 0 when refused
 * @param decision when granted, the decision for taking {@code granted} permits (allowed; its {@code remaining} is
 * what the shared state had left after the grant); when refused, the refusal of the minimum asked for
 * @param takenAtMicros the backend's clock when the permits were taken, in microseconds since the epoch, which a
 * return of unused permits needs to find the window they were taken from
 */
public record LeaseGrant(long granted, Decision decision, long takenAtMicros) {

	/**
	 * Whether permits were granted.
	 * @return whether {@link #granted()} is above 0
	 */
	public boolean allowed() {
		return this.granted > 0;
	}

}
