package io.github.ratelimit.core.override;

import java.time.Instant;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;

import io.github.ratelimit.core.Limit;
import org.jspecify.annotations.Nullable;

/**
 * One client's own limits under a policy, in place of its plan's (or the policy's) until removed or expired.
 *
 * @param policy the policy's name
 * @param key the client's key under the policy
 * @param limits the client's limits, at least one
 * @param expiresAt when the override ends, or {@code null} to keep it until removed
 * @param setBy who set it (the operator's name as the endpoint's security context gives it)
 * @param setAt when it was set
 */
public record ClientOverride(String policy, String key, List<Limit> limits, @Nullable Instant expiresAt, String setBy,
		Instant setAt) {

	/**
	 * Creates an override, validating it.
	 * @param policy the policy's name
	 * @param key the client's key
	 * @param limits the limits, at least one
	 * @param expiresAt when it ends, or {@code null}
	 * @param setBy who set it
	 * @param setAt when it was set
	 */
	public ClientOverride {
		if (limits == null || limits.isEmpty()) {
			throw new IllegalArgumentException("An override needs at least one limit, such as \"1000/1m\"");
		}
		limits = List.copyOf(limits);
	}

	/**
	 * Whether the override has ended at a time.
	 * @param now the time
	 * @return whether it expired
	 */
	public boolean expiredAt(Instant now) {
		return this.expiresAt != null && !now.isBefore(this.expiresAt);
	}

	/**
	 * The overrides of a collection still in force at a time, ordered by key.
	 * @param overrides the overrides
	 * @param now the time
	 * @return those not expired
	 */
	public static List<ClientOverride> inForce(Collection<ClientOverride> overrides, Instant now) {
		return overrides.stream()
			.filter((override) -> !override.expiredAt(now))
			.sorted(Comparator.comparing(ClientOverride::key))
			.toList();
	}

}
