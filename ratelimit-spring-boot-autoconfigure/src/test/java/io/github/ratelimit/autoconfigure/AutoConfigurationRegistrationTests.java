package io.github.ratelimit.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Properties;

import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.beans.BeanUtils;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.context.ApplicationContextInitializer;
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
				RateLimitActuatorAutoConfiguration.class.getName(), RateLimitMetricsAutoConfiguration.class.getName(),
				RateLimitGatewayWebFluxAutoConfiguration.class.getName());
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
		assertThat(factories.stringPropertyNames()).containsExactlyInAnyOrder(FailureAnalyzer.class.getName(),
				ApplicationContextInitializer.class.getName());
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
			.contains(InvalidRateLimitConfigurationFailureAnalyzer.class.getName())
			.contains(UnsupportedSpringBootFailureAnalyzer.class.getName());
		assertThat(factories.getProperty(ApplicationContextInitializer.class.getName()))
			.isEqualTo(SpringBootVersionCheck.class.getName());
	}

	/**
	 * The runtime hints of every module: each registers its own ({@code ratelimit-redis} the scripts',
	 * {@code ratelimit-spring} the annotation's and the key expressions', this module the properties' and the
	 * endpoint's), read here from every {@code aot.factories} on the class path, as Spring's AOT processing reads them.
	 */
	@Test
	void everyAotFactoryShouldLoadAndImplementItsKey() throws Exception {
		Properties factories = new Properties();
		factories.load(new StringReader(read(AOT_FACTORIES)));
		assertThat(factories.stringPropertyNames()).containsExactly(RuntimeHintsRegistrar.class.getName());
		List<String> names = new ArrayList<>();
		for (URL resource : Collections.list(getClass().getClassLoader().getResources(AOT_FACTORIES))) {
			Properties each = new Properties();
			try (InputStream in = resource.openStream()) {
				each.load(in);
			}
			for (String name : StringUtils
				.commaDelimitedListToStringArray(each.getProperty(RuntimeHintsRegistrar.class.getName(), ""))) {
				if (name.trim().startsWith("io.github.ratelimit.")) {
					names.add(name.trim());
				}
			}
		}
		assertThat(names).containsExactlyInAnyOrder("io.github.ratelimit.autoconfigure.RateLimitPropertiesRuntimeHints",
				"io.github.ratelimit.spring.actuate.RateLimitsEndpointRuntimeHints",
				"io.github.ratelimit.spring.RequestExpressionRuntimeHints",
				"io.github.ratelimit.spring.annotation.RateLimitedRuntimeHints",
				"io.github.ratelimit.redis.LuaScriptRuntimeHints");
		for (String name : names) {
			Class<?> type = Class.forName(name, false, getClass().getClassLoader());
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
