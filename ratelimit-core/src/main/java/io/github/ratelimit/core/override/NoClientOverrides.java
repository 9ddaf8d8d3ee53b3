package io.github.ratelimit.core.override;

import java.time.Duration;
import java.util.List;
import java.util.function.BiConsumer;

import io.github.ratelimit.core.Limit;
import org.jspecify.annotations.Nullable;

/**
 * {@link ClientOverrides#none()}.
 */
final class NoClientOverrides implements ClientOverrides {

	static final NoClientOverrides INSTANCE = new NoClientOverrides();

	@Override
	public @Nullable ClientOverride find(String policy, String key) {
		return null;
	}

	@Override
	public List<ClientOverride> list(String policy) {
		return List.of();
	}

	@Override
	public ClientOverride set(String policy, String key, List<Limit> limits, @Nullable Duration expiresIn,
			String setBy) {
		throw new IllegalStateException("Overrides are not kept by this application");
	}

	@Override
	public @Nullable ClientOverride remove(String policy, String key) {
		return null;
	}

	@Override
	public void onChange(BiConsumer<String, String> listener) {
	}

}
