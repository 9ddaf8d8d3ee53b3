package io.github.ratelimit.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests that the configuration metadata IDEs read documents every property of the contract.
 */
class ConfigurationMetadataTests {

	private static final String METADATA = "META-INF/spring-configuration-metadata.json";

	@ParameterizedTest
	@ValueSource(strings = { "ratelimit.enabled", "ratelimit.backend", "ratelimit.key-prefix", "ratelimit.algorithm",
			"ratelimit.headers", "ratelimit.timeout", "ratelimit.failure-mode", "ratelimit.fallback.instances",
			"ratelimit.deny-cache.enabled", "ratelimit.filter.enabled", "ratelimit.filter.order",
			"ratelimit.policies" })
	void propertyShouldBeDocumented(String name) throws IOException {
		JsonNode property = properties().get(name);
		assertThat(property).as("metadata of %s", name).isNotNull();
		assertThat(property.path("type").asString()).as("type of %s", name).isNotEmpty();
		assertThat(property.path("description").asString()).as("description of %s", name).isNotBlank();
	}

	private Map<String, JsonNode> properties() throws IOException {
		try (InputStream in = ModuleResources.open(METADATA)) {
			Map<String, JsonNode> properties = new HashMap<>();
			JsonMapper.builder().build().readTree(in).path("properties")
				.forEach((property) -> properties.put(property.path("name").asString(), property));
			return properties;
		}
	}

}
