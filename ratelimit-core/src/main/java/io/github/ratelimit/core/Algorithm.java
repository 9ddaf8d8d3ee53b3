package io.github.ratelimit.core;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The algorithms a policy can be decided by.
 */
public enum Algorithm {

	/**
	 * A bucket of {@code capacity} tokens, refilled continuously at {@code capacity} per period.
	 */
	TOKEN_BUCKET("token-bucket"),

	/**
	 * The generic cell rate algorithm: the same admissions as the token bucket, stored as one timestamp.
	 */
	GCRA("gcra"),

	/**
	 * A counter per window of one period, windows aligned to the epoch.
	 */
	FIXED_WINDOW("fixed-window"),

	/**
	 * The current window's counter plus the previous window's, weighted by how much of it still overlaps the last
	 * period. Approximate: it assumes the previous window's requests were spread evenly.
	 */
	SLIDING_WINDOW("sliding-window"),

	/**
	 * One timestamp per admitted permit over the last period. Exact; memory grows with the capacity, so it suits small
	 * limits.
	 */
	SLIDING_LOG("sliding-log");

	private final String id;

	Algorithm(String id) {
		this.id = id;
	}

	/**
	 * The algorithm's name in configuration, such as {@code token-bucket}.
	 * @return the configuration name
	 */
	public String id() {
		return this.id;
	}

	/**
	 * Finds an algorithm by its configuration name ({@code token-bucket}) or constant name ({@code TOKEN_BUCKET}).
	 * @param name the name
	 * @return the algorithm
	 * @throws IllegalArgumentException when no algorithm has that name
	 */
	public static Algorithm of(String name) {
		String normalized = name.trim().toLowerCase(Locale.ROOT).replace('_', '-');
		for (Algorithm algorithm : values()) {
			if (algorithm.id.equals(normalized)) {
				return algorithm;
			}
		}
		throw new IllegalArgumentException("Unknown rate limit algorithm '" + name + "'; expected one of "
				+ Arrays.stream(values()).map(Algorithm::id).collect(Collectors.joining(", ")));
	}

	/**
	 * Whether a policy of this algorithm can be leased: whether permits taken in a batch and handed out later, up to a
	 * lease's maximum age, keep the limit it promises. True for the token bucket and GCRA (every admission paid for in
	 * the shared state no earlier than the lease's age before it is used) and the fixed window (a lease never outlives
	 * the window it was taken in). False for the sliding window and sliding log, whose promise is about every rolling
	 * period: a permit taken in one and used in the next would be counted in neither.
	 * @return whether the algorithm can be leased
	 */
	public boolean leasable() {
		return this == TOKEN_BUCKET || this == GCRA || this == FIXED_WINDOW;
	}

	/**
	 * Whether a policy of this algorithm can reserve permits ({@link RateLimiter#tryReserveAsync}): take, now, permits
	 * that come due later, within a caller's maximum wait, so that a caller waiting for its turn asks once. True for
	 * the token bucket and GCRA, whose state can run into debt (a level below empty, a theoretical arrival time more
	 * than a period ahead) that later requests pay off in order; false for the windows and the log, which count
	 * admissions per window.
	 * @return whether the algorithm can reserve
	 */
	public boolean reservable() {
		return this == TOKEN_BUCKET || this == GCRA;
	}

	@Override
	public String toString() {
		return this.id;
	}

}
