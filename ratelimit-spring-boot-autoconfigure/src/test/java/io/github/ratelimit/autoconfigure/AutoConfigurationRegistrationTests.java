package io.github.ratelimit.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.beans.BeanUtils;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.util.StringUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests that every class this module registers in {@code META-INF} (auto-configurations, Spring factories, AOT
 * factories) exists: a stale name there only fails in users' applications.
 */
class AutoConfigurationRegistrationTests {

	private static final String IMPORTS = "META-INF/spring/" + AutoConfiguration.class.getName() + ".imports";

	private static final String FACTORIES = "META-INF/spring.factories";

	private static final String AOT_FACTORIES = "META-INF/spring/aot.factories";

	@Test
	void everyAutoConfigurationImportShouldLoad() throws Exception {
		List<String> names = new ArrayList<>();
		for (String line : read(IMPORTS).split("\\R")) {
			String name = line.trim();
			if (!name.isEmpty() && !name.startsWith("#")) {
				names.add(name);
			}
		}
		assertThat(names).containsExactlyInAnyOrder(RateLimitAutoConfiguration.class.getName(),
				RateLimitRedisAutoConfiguration.class.getName(), RateLimitReactiveAutoConfiguration.class.getName(),
				RateLimitServletAutoConfiguration.class.getName(), RateLimitAspectAutoConfiguration.class.getName(),
				RateLimitActuatorAutoConfiguration.class.getName(), RateLimitMetricsAutoConfiguration.class.getName());
		for (String name : names) {
			Class<?> type = Class.forName(name, false, getClass().getClassLoader());
			assertThat(MergedAnnotations.from(type).isPresent(AutoConfiguration.class))
				.as("%s is an @AutoConfiguration", name)
				.isTrue();
		}
	}

	@Test
	void everySpringFactoryShouldLoadAndImplementItsKey() throws Exception {
		Properties factories = new Properties();
		factories.load(new StringReader(read(FACTORIES)));
		assertThat(factories.stringPropertyNames()).containsExactly(FailureAnalyzer.class.getName());
		for (String key : factories.stringPropertyNames()) {
			Class<?> factoryType = Class.forName(key);
			String[] names = StringUtils.commaDelimitedListToStringArray(factories.getProperty(key));
			assertThat(names).isNotEmpty();
			for (String name : names) {
				Class<?> type = Class.forName(name.trim(), false, getClass().getClassLoader());
				assertThat(factoryType).isAssignableFrom(type);
			}
		}
		assertThat(factories.getProperty(FailureAnalyzer.class.getName()))
			.contains(InvalidRateLimitConfigurationFailureAnalyzer.class.getName());
	}

	@Test
	void everyAotFactoryShouldLoadAndImplementItsKey() throws Exception {
		Properties factories = new Properties();
		factories.load(new StringReader(read(AOT_FACTORIES)));
		assertThat(factories.stringPropertyNames()).containsExactly(RuntimeHintsRegistrar.class.getName());
		String[] names = StringUtils
			.commaDelimitedListToStringArray(factories.getProperty(RuntimeHintsRegistrar.class.getName()));
		assertThat(names).hasSize(4);
		for (String name : names) {
			Class<?> type = Class.forName(name.trim(), false, getClass().getClassLoader());
			assertThat(RuntimeHintsRegistrar.class).isAssignableFrom(type);
			assertThat(BeanUtils.instantiateClass(type)).isInstanceOf(RuntimeHintsRegistrar.class);
		}
	}

	private static String read(String resource) throws IOException {
		try (InputStream in = ModuleResources.open(resource)) {
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
	}

}
