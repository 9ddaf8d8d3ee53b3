package io.github.ratelimit.autoconfigure;

import java.beans.PropertyDescriptor;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.spring.FailureMode;
import io.github.ratelimit.autoconfigure.RateLimitProperties.HeaderStyle;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.BeanUtils;
import org.springframework.util.ClassUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests that the configuration metadata IDEs read (the generated file, as built) documents every property of the
 * contract, those of each policy included, and offers the values of each property that takes one of a few.
 */
class ConfigurationMetadataTests {

	private static final String METADATA = "META-INF/spring-configuration-metadata.json";

	/** How the metadata names a property of every policy: the map key, the policy's name, is a wildcard. */
	private static final String POLICY = "ratelimit.policies.*.";

	/** How the metadata names a property of every plan of every policy. */
	private static final String PLAN = POLICY + "plans.*.";

	@ParameterizedTest
	@ValueSource(strings = { "ratelimit.enabled", "ratelimit.backend", "ratelimit.key-prefix", "ratelimit.algorithm",
			"ratelimit.headers", "ratelimit.timeout", "ratelimit.failure-mode", "ratelimit.fallback.instances",
			"ratelimit.circuit-breaker.failure-rate-threshold", "ratelimit.circuit-breaker.window",
			"ratelimit.circuit-breaker.minimum-calls", "ratelimit.circuit-breaker.open-duration",
			"ratelimit.deny-cache.enabled", "ratelimit.deny-cache.maximum-clients",
			"ratelimit.in-memory.maximum-clients", "ratelimit.redis.max-reconnect-delay", "ratelimit.filter.enabled",
			"ratelimit.filter.order", "ratelimit.filter.principal-order", "ratelimit.ip.ipv4-prefix-length",
			"ratelimit.ip.ipv6-prefix-length",
			"ratelimit.overrides.refresh-interval", "ratelimit.overrides.maximum",
			"ratelimit.policies", POLICY + "limits", POLICY + "algorithm", POLICY + "key", POLICY + "hash-keys",
			POLICY + "paths", POLICY + "exclude-paths", POLICY + "methods", POLICY + "cost", POLICY + "failure-mode",
			POLICY + "shadow", POLICY + "plan", POLICY + "default-plan", POLICY + "plans", PLAN + "limits",
			PLAN + "algorithm", PLAN + "cost" })
	void propertyShouldBeDocumented(String name) throws IOException {
		JsonNode property = metadata("properties").get(name);
		assertThat(property).as("metadata of %s", name).isNotNull();
		assertThat(property.path("type").asString()).as("type of %s", name).isNotEmpty();
		assertThat(property.path("description").asString()).as("description of %s", name).isNotBlank();
	}

	@Test
	void everyPropertyOfAPolicyShouldBeDocumentedWithItsType() throws IOException {
		assertEveryPropertyDocumented(RateLimitProperties.PolicyProperties.class, POLICY);
	}

	@Test
	void everyPropertyOfAPlanShouldBeDocumentedWithItsType() throws IOException {
		assertEveryPropertyDocumented(RateLimitProperties.PlanProperties.class, PLAN);
	}

	/**
	 * The properties the metadata documents directly under a prefix are exactly those a type binds, each with the
	 * type it binds.
	 */
	private void assertEveryPropertyDocumented(Class<?> type, String prefix) throws IOException {
		Map<String, JsonNode> properties = metadata("properties");
		List<String> documented = properties.keySet()
			.stream()
			.filter((name) -> name.startsWith(prefix) && !name.substring(prefix.length()).contains("."))
			.toList();
		List<String> bound = new ArrayList<>();
		for (PropertyDescriptor descriptor : BeanUtils.getPropertyDescriptors(type)) {
			if (descriptor.getWriteMethod() != null) {
				String name = prefix + kebabCase(descriptor.getName());
				bound.add(name);
				assertThat(properties.get(name)).as("metadata of %s", name).isNotNull();
				assertThat(properties.get(name).path("type").asString()).as("type of %s", name)
					.startsWith(ClassUtils.resolvePrimitiveIfNecessary(descriptor.getPropertyType()).getName());
			}
		}
		assertThat(documented).containsExactlyInAnyOrderElementsOf(bound);
	}

	@Test
	void keyShouldHintEveryStrategy() throws IOException {
		assertThat(hintedValues(POLICY + "key")).containsExactly("ip", "global", "principal", "header:", "param:",
				"expr:", "bean:");
	}

	@Test
	void planShouldHintEveryStrategy() throws IOException {
		assertThat(hintedValues(POLICY + "plan")).containsExactly("bean:", "expr:");
	}

	@Test
	void algorithmsShouldHintEveryAlgorithm() throws IOException {
		String[] algorithms = Arrays.stream(Algorithm.values()).map(Algorithm::id).toArray(String[]::new);
		assertThat(hintedValues("ratelimit.algorithm")).containsExactly(algorithms);
		assertThat(hintedValues(POLICY + "algorithm")).containsExactly(algorithms);
		assertThat(hintedValues(PLAN + "algorithm")).containsExactly(algorithms);
	}

	@Test
	void failureModesShouldHintEveryMode() throws IOException {
		String[] modes = configurationNames(FailureMode.values());
		assertThat(hintedValues("ratelimit.failure-mode")).containsExactly(modes);
		assertThat(hintedValues(POLICY + "failure-mode")).containsExactly(modes);
	}

	@Test
	void headersShouldHintEveryStyle() throws IOException {
		assertThat(hintedValues("ratelimit.headers")).containsExactly(configurationNames(HeaderStyle.values()));
	}

	@Test
	void backendShouldHintEveryBackend() throws IOException {
		assertThat(hintedValues("ratelimit.backend"))
			.containsExactly(configurationNames(RateLimitProperties.Backend.values()));
	}

	@Test
	void methodsShouldHintEveryHttpMethod() throws IOException {
		assertThat(hintedValues(POLICY + "methods")).containsExactly("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE",
				"OPTIONS", "TRACE");
	}

	private List<String> hintedValues(String name) throws IOException {
		JsonNode hint = metadata("hints").get(name);
		assertThat(hint).as("hint of %s", name).isNotNull();
		List<String> values = new ArrayList<>();
		for (JsonNode value : hint.path("values")) {
			values.add(value.path("value").asString());
			if (!name.endsWith(".methods")) {
				assertThat(value.path("description").asString()).as("description of %s in %s", values, name)
					.isNotBlank();
			}
		}
		return values;
	}

	private static String[] configurationNames(Enum<?>[] constants) {
		return Stream.of(constants)
			.map((constant) -> constant.name().toLowerCase(Locale.ROOT).replace('_', '-'))
			.toArray(String[]::new);
	}

	private static String kebabCase(String name) {
		return name.replaceAll("([A-Z])", "-$1").toLowerCase(Locale.ROOT);
	}

	private Map<String, JsonNode> metadata(String section) throws IOException {
		try (InputStream in = ModuleResources.open(METADATA)) {
			Map<String, JsonNode> items = new HashMap<>();
			JsonMapper.builder().build().readTree(in).path(section)
				.forEach((item) -> items.put(item.path("name").asString(), item));
			return items;
		}
	}

}
