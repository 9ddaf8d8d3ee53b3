package io.github.ratelimit.redis;

import java.io.IOException;
import java.util.List;

import io.github.ratelimit.core.Algorithm;
import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;
import org.springframework.core.io.support.SpringFactoriesLoader;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests that AOT processing, through {@code META-INF/spring/aot.factories}, keeps every Lua script of this module in a
 * native image.
 */
class LuaScriptRuntimeHintsTests {

	private static final String SCRIPTS = "io/github/ratelimit/redis/";

	@Test
	void aotFactoriesRegisterTheHintsOfEveryLuaScript() throws IOException {
		List<RuntimeHintsRegistrar> registrars = SpringFactoriesLoader.forResourceLocation("META-INF/spring/aot.factories")
			.load(RuntimeHintsRegistrar.class);
		assertThat(registrars).hasAtLeastOneElementOfType(LuaScriptRuntimeHints.class);
		RuntimeHints hints = new RuntimeHints();
		registrars.forEach((registrar) -> registrar.registerHints(hints, getClass().getClassLoader()));
		Resource[] scripts = new PathMatchingResourcePatternResolver().getResources("classpath*:" + SCRIPTS + "*.lua");
		assertThat(scripts).hasSizeGreaterThanOrEqualTo(Algorithm.values().length + 1);
		for (Resource script : scripts) {
			assertThat(RuntimeHintsPredicates.resource().forResource(SCRIPTS + script.getFilename()))
				.as(script.getFilename())
				.accepts(hints);
		}
		for (Algorithm algorithm : Algorithm.values()) {
			assertThat(RuntimeHintsPredicates.resource().forResource(SCRIPTS + algorithm.id() + ".lua")).accepts(hints);
		}
	}

	@Test
	void hintsKeepNoOtherResources() {
		RuntimeHints hints = new RuntimeHints();
		new LuaScriptRuntimeHints().registerHints(hints, getClass().getClassLoader());
		assertThat(RuntimeHintsPredicates.resource().forResource(SCRIPTS + "previous/token-bucket.lua")).rejects(hints);
		assertThat(RuntimeHintsPredicates.resource().forResource(SCRIPTS + "LuaScript.class")).rejects(hints);
	}

}
