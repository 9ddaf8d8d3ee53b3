package io.github.ratelimit.redis;

import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

import io.github.ratelimit.core.Limit;
import io.github.ratelimit.core.override.ClientOverride;
import org.jspecify.annotations.Nullable;

/**
 * How an override is written in the hash of overrides: field {@code <policy length>:<policy><key>}, value
 * {@code <limits, comma-separated>|<expires at, epoch ms, 0 for never>|<set at, epoch ms>|<set by>}.
 */
final class OverrideValues {

	private OverrideValues() {
	}

	/**
	 * The limits as the value holds them.
	 * @param limits the limits
	 * @return such as {@code 1000/1m,50000/1d}
	 */
	static String limits(List<Limit> limits) {
		return limits.stream().map(Limit::toString).collect(Collectors.joining(","));
	}

	/**
	 * Reads an override from its field and value.
	 * @param field the hash field
	 * @param value the value
	 * @return the override, or {@code null} when either cannot be read
	 */
	static @Nullable ClientOverride parse(String field, String value) {
		int colon = field.indexOf(':');
		try {
			int length = Integer.parseInt(field.substring(0, colon));
			if (colon < 1 || length < 1 || colon + 1 + length > field.length()) {
				return null;
			}
			return parse(field.substring(colon + 1, colon + 1 + length), field.substring(colon + 1 + length), value);
		}
		catch (RuntimeException ex) {
			return null;
		}
	}

	/**
	 * Reads an override's value.
	 * @param policy the policy's name
	 * @param key the client's key
	 * @param value the value
	 * @return the override, or {@code null} when the value cannot be read
	 */
	static @Nullable ClientOverride parse(String policy, String key, String value) {
		String[] parts = value.split("\\|", 4);
		if (parts.length != 4) {
			return null;
		}
		try {
			List<Limit> limits = Arrays.stream(parts[0].split(",")).map(Limit::parse).toList();
			long expiresAt = Long.parseLong(parts[1]);
			return new ClientOverride(policy, key, limits, (expiresAt > 0) ? Instant.ofEpochMilli(expiresAt) : null,
					parts[3], Instant.ofEpochMilli(Long.parseLong(parts[2])));
		}
		catch (RuntimeException ex) {
			return null;
		}
	}

}
