package io.github.ratelimit.core;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

/**
 * A named rate limit policy: an algorithm and one or more limits, all of which must admit a request. A policy may be
 * one plan of a policy that gives its clients different limits (a {@code free} and a {@code pro} plan): each plan
 * keeps its clients' state apart from every other plan's.
 *
 * @param name the policy name, unique within an application
 * @param algorithm the algorithm that decides it
 * @param limits the limits, at least one
 * @param plan the plan of the policy these limits are, or {@code null} for a policy without plans
 */
public record Policy(String name, Algorithm algorithm, List<Limit> limits, @Nullable String plan) {

	/** The largest capacity of a {@code sliding-log} limit, so that one decision stays near a millisecond in Redis. */
	public static final long MAX_SLIDING_LOG_CAPACITY = 500;

	/**
	 * Creates a policy, validating it.
	 * @param name the policy name: not blank, without '{' or '}' (they would break Redis Cluster hash tags)
	 * @param algorithm the algorithm
	 * @param limits the limits, at least one
	 * @param plan the plan, or {@code null}: letters, digits, '-' and '_' only
	 * @throws IllegalArgumentException when a value is invalid
	 */
	public Policy {
		if (name == null || name.isBlank()) {
			throw new IllegalArgumentException("Policy name must not be blank");
		}
		if (name.indexOf('{') >= 0 || name.indexOf('}') >= 0) {
			throw new IllegalArgumentException("Policy name '" + name + "' must not contain '{' or '}'");
		}
		if (algorithm == null) {
			throw new IllegalArgumentException("Policy '" + name + "' needs an algorithm");
		}
		if (limits == null || limits.isEmpty()) {
			throw new IllegalArgumentException("Policy '" + name + "' needs at least one limit, such as \"100/1m\"");
		}
		if (limits.stream().anyMatch(java.util.Objects::isNull)) {
			throw new IllegalArgumentException("Policy '" + name + "' has a null limit");
		}
		if (plan != null && !isPlanName(plan)) {
			throw new IllegalArgumentException("Plan '" + plan + "' of policy '" + name
					+ "' must be a non-empty name of letters, digits, '-' and '_'");
		}
		limits = List.copyOf(limits);
		for (Limit limit : limits) {
			checkBounds(name, algorithm, limit);
		}
	}

	/**
	 * Creates a policy without plans.
	 * @param name the policy name: not blank, without '{' or '}'
	 * @param algorithm the algorithm
	 * @param limits the limits, at least one
	 * @throws IllegalArgumentException when a value is invalid
	 */
	public Policy(String name, Algorithm algorithm, List<Limit> limits) {
		this(name, algorithm, limits, null);
	}

	/**
	 * Whether a name may name a plan: letters, digits, '-' and '_', at least one.
	 * @param plan the name
	 * @return whether it is valid
	 */
	public static boolean isPlanName(String plan) {
		if (plan.isEmpty()) {
			return false;
		}
		for (int i = 0; i < plan.length(); i++) {
			char c = plan.charAt(i);
			if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_')) {
				return false;
			}
		}
		return true;
	}

	/**
	 * The same policy with other limits and algorithm, as one of its plans (or a client's override).
	 * @param plan the plan's name
	 * @param algorithm the plan's algorithm
	 * @param limits the plan's limits
	 * @return the plan's policy
	 */
	public Policy withPlan(String plan, Algorithm algorithm, List<Limit> limits) {
		return new Policy(this.name, algorithm, limits, plan);
	}

	/**
	 * Creates a policy from limits written as {@code "100/1m"}.
	 * @param name the policy name
	 * @param algorithm the algorithm
	 * @param limits the limits
	 * @return the policy
	 */
	public static Policy of(String name, Algorithm algorithm, String... limits) {
		return new Policy(name, algorithm, List.of(limits).stream().map(Limit::parse).toList());
	}

	/**
	 * A short, stable fingerprint of the algorithm and limits: state kept under one fingerprint is never read by a
	 * policy whose algorithm or limits changed.
	 * @return eight hexadecimal characters
	 */
	public String fingerprint() {
		String canonical = this.algorithm.id() + "|"
				+ this.limits.stream().map(Limit::toString).collect(Collectors.joining(","));
		return HexFormat.of().formatHex(md5(canonical.getBytes(StandardCharsets.UTF_8)), 0, 4);
	}

	/**
	 * This policy with every limit replaced by its {@linkplain Limit#share(int) share} for one of a number of
	 * instances, for an instance that decides alone what several decide together.
	 * @param instances the number of instances, at least 1
	 * @return the divided policy
	 */
	public Policy dividedBy(int instances) {
		return new Policy(this.name, this.algorithm, this.limits.stream().map((limit) -> limit.share(instances)).toList(),
				this.plan);
	}

	/**
	 * The smallest capacity of this policy's limits: a request costing more can never be admitted.
	 * @return the smallest capacity
	 */
	public long smallestCapacity() {
		return this.limits.stream().mapToLong(Limit::capacity).min().orElseThrow();
	}

	/**
	 * Checks the bounds an algorithm sets beyond {@link Limit}'s own: {@code sliding-window} compares counts
	 * multiplied by the period, so capacity x period must stay exact; {@code sliding-log} logs every permit, so its
	 * capacity (and so any cost) is bounded by the work one decision may do.
	 */
	private static void checkBounds(String name, Algorithm algorithm, Limit limit) {
		if (algorithm == Algorithm.SLIDING_WINDOW
				&& limit.capacity() > Limit.EXACT_INTEGER_LIMIT / limit.periodMicros()) {
			throw new IllegalArgumentException("Limit " + limit + " of policy '" + name
					+ "' is too large for sliding-window: capacity x period in microseconds must be at most 2^53 = "
					+ Limit.EXACT_INTEGER_LIMIT + "; use a smaller capacity or a shorter period, or token-bucket or gcra");
		}
		if (algorithm == Algorithm.SLIDING_LOG && limit.capacity() > MAX_SLIDING_LOG_CAPACITY) {
			throw new IllegalArgumentException("Limit " + limit + " of policy '" + name
					+ "' is too large for sliding-log: it logs every permit, so its capacity must be at most "
					+ MAX_SLIDING_LOG_CAPACITY + " to keep one decision near a millisecond inside Redis; "
					+ "use sliding-window (approximate, constant memory) or gcra (exact, one small key) instead");
		}
	}

	private static byte[] md5(byte[] bytes) {
		try {
			return MessageDigest.getInstance("MD5").digest(bytes);
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("MD5 is required of every Java platform", ex);
		}
	}

}
