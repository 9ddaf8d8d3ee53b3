package io.github.ratelimit.core.override;

import java.time.Duration;
import java.util.List;
import java.util.function.BiConsumer;

import io.github.ratelimit.core.Limit;
import org.jspecify.annotations.Nullable;

/**
 * Where operators' per-client overrides live. {@link #find(String, String)} is asked on every decision and answers
 * from memory, never with I/O; writes go to the store every instance reads (Redis for the Redis backend), and each
 * instance's copy follows them within its refresh interval.
 */
public interface ClientOverrides {

	/** The most overrides kept unless configured otherwise. */
	int DEFAULT_MAXIMUM = 10_000;

	/**
	 * The override of a client, from this instance's copy: no I/O.
	 * @param policy the policy's name
	 * @param key the client's key
	 * @return the override in force, or {@code null}
	 */
	@Nullable ClientOverride find(String policy, String key);

	/**
	 * Every override in force under a policy, as this instance knows them (for a shared store, as of this instance's
	 * last refresh), without failing while the store cannot be reached.
	 * @param policy the policy's name
	 * @return the overrides, ordered by key
	 */
	List<ClientOverride> list(String policy);

	/**
	 * Sets (or replaces) a client's override in the store.
	 * @param policy the policy's name
	 * @param key the client's key
	 * @param limits the client's limits
	 * @param expiresIn how long it lasts, or {@code null} until removed
	 * @param setBy who sets it
	 * @return the override as stored, its times on the store's clock
	 * @throws IllegalStateException when the store holds its maximum number of overrides already
	 */
	ClientOverride set(String policy, String key, List<Limit> limits, @Nullable Duration expiresIn, String setBy);

	/**
	 * Removes a client's override from the store.
	 * @param policy the policy's name
	 * @param key the client's key
	 * @return the override removed, or {@code null} when there was none
	 */
	@Nullable ClientOverride remove(String policy, String key);

	/**
	 * Registers what this instance does when its copy of a client's override changes (set, replaced, removed or
	 * expired, here or on another instance).
	 * @param listener told the policy's name and the client's key
	 */
	void onChange(BiConsumer<String, String> listener);

	/**
	 * No overrides, and none can be set.
	 * @return the empty overrides
	 */
	static ClientOverrides none() {
		return NoClientOverrides.INSTANCE;
	}

}
