package io.github.ratelimit.autoconfigure;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.boot.context.properties.bind.BindableRuntimeHintsRegistrar;

/**
 * Lets {@code ratelimit.*} bind in a native image: at start-up and again when live configuration rebinds it.
 */
class RateLimitPropertiesRuntimeHints implements RuntimeHintsRegistrar {

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		BindableRuntimeHintsRegistrar.forTypes(RateLimitProperties.class).registerHints(hints, classLoader);
	}

}
