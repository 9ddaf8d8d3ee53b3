package io.github.ratelimit.redis;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * Keeps this package's Lua scripts in a native image, which holds only the resources it is told about.
 */
class LuaScriptRuntimeHints implements RuntimeHintsRegistrar {

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		hints.resources().registerPattern(LuaScript.class.getPackageName().replace('.', '/') + "/*.lua");
	}

}
