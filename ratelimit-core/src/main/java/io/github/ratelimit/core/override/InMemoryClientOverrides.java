package io.github.ratelimit.core.override;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiConsumer;

import io.github.ratelimit.core.Limit;
import org.jspecify.annotations.Nullable;

/**
 * Overrides of this instance only, for the in-memory backend: they end with the process. Expired overrides are
 * never found, and are dropped when next looked at.
 */
public class InMemoryClientOverrides implements ClientOverrides {

	private final Clock clock;

	private final int maximum;

	private final ConcurrentMap<String, ConcurrentMap<String, ClientOverride>> byPolicy = new ConcurrentHashMap<>();

	private final List<BiConsumer<String, String>> listeners = new CopyOnWriteArrayList<>();

	/**
	 * Creates the overrides.
	 * @param clock the clock of expiries
	 * @param maximum the most overrides kept
	 */
	public InMemoryClientOverrides(Clock clock, int maximum) {
		if (maximum < 1) {
			throw new IllegalArgumentException("The most overrides kept must be at least 1, was " + maximum);
		}
		this.clock = clock;
		this.maximum = maximum;
	}

	@Override
	public @Nullable ClientOverride find(String policy, String key) {
		Map<String, ClientOverride> overrides = this.byPolicy.get(policy);
		if (overrides == null) {
			return null;
		}
		ClientOverride override = overrides.get(key);
		if (override != null && override.expiredAt(this.clock.instant())) {
			if (overrides.remove(key, override)) {
				changed(policy, key);
			}
			return null;
		}
		return override;
	}

	@Override
	public List<ClientOverride> list(String policy) {
		return ClientOverride.inForce(this.byPolicy.getOrDefault(policy, new ConcurrentHashMap<>()).values(),
				this.clock.instant());
	}

	@Override
	public synchronized ClientOverride set(String policy, String key, List<Limit> limits,
			@Nullable Duration expiresIn, String setBy) {
		Instant now = this.clock.instant();
		ConcurrentMap<String, ClientOverride> overrides = this.byPolicy.computeIfAbsent(policy,
				(name) -> new ConcurrentHashMap<>());
		if (!overrides.containsKey(key) && count(now) >= this.maximum) {
			throw new IllegalStateException("There are " + this.maximum
					+ " overrides already, the most kept; remove one first or raise ratelimit.overrides.maximum");
		}
		ClientOverride override = new ClientOverride(policy, key, limits,
				(expiresIn != null) ? now.plus(expiresIn) : null, setBy, now);
		overrides.put(key, override);
		changed(policy, key);
		return override;
	}

	@Override
	public @Nullable ClientOverride remove(String policy, String key) {
		Map<String, ClientOverride> overrides = this.byPolicy.get(policy);
		ClientOverride removed = (overrides != null) ? overrides.remove(key) : null;
		if (removed != null) {
			changed(policy, key);
		}
		return (removed != null && !removed.expiredAt(this.clock.instant())) ? removed : null;
	}

	@Override
	public void onChange(BiConsumer<String, String> listener) {
		this.listeners.add(listener);
	}

	private long count(Instant now) {
		this.byPolicy.values().forEach((overrides) -> overrides.values().removeIf((o) -> o.expiredAt(now)));
		return this.byPolicy.values().stream().mapToLong(Map::size).sum();
	}

	private void changed(String policy, String key) {
		for (BiConsumer<String, String> listener : this.listeners) {
			listener.accept(policy, key);
		}
	}

}
