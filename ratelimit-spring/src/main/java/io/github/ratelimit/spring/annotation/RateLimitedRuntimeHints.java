package io.github.ratelimit.spring.annotation;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * Lets the advisor read {@link RateLimited}'s attributes in a native image; the annotated methods themselves are
 * registered by AOT processing, {@link RateLimited} being {@code @Reflective}.
 */
class RateLimitedRuntimeHints implements RuntimeHintsRegistrar {

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		hints.reflection()
			.registerType(RateLimited.class, MemberCategory.INVOKE_PUBLIC_METHODS)
			.registerType(RateLimited.List.class, MemberCategory.INVOKE_PUBLIC_METHODS);
	}

}
