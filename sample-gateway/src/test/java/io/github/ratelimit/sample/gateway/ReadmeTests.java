package io.github.ratelimit.sample.gateway;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ByteArrayResource;
import org.springframework.core.io.ClassPathResource;
import org.springframework.core.io.Resource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The routes and policies the README shows are the sample's own: every property of its gateway configuration block
 * (which the documentation test of the auto-configuration module does not start: it runs without the gateway) has the
 * same value in {@code application.yml}, which {@link SampleGatewayApplicationTests} start.
 */
class ReadmeTests {

	private static final Pattern GATEWAY_BLOCK = Pattern
		.compile("<!-- yaml: not application\\.yml -->\\n```yaml\\n(spring:\\n  cloud:\\n    gateway:.*?)```",
				Pattern.DOTALL);

	@Test
	void gatewayConfigurationOfTheReadmeIsTheSamples() throws IOException {
		Matcher block = GATEWAY_BLOCK.matcher(Files.readString(Path.of("README.md")));
		assertThat(block.find()).as("the README's gateway configuration block").isTrue();
		Map<String, Object> shown = properties(
				new ByteArrayResource(block.group(1).getBytes(StandardCharsets.UTF_8), "README.md"));
		Map<String, Object> shipped = properties(new ClassPathResource("application.yml"));
		assertThat(shown).isNotEmpty();
		assertThat(shipped).containsAllEntriesOf(shown);
	}

	private static Map<String, Object> properties(Resource yaml) throws IOException {
		Map<String, Object> properties = new LinkedHashMap<>();
		for (PropertySource<?> source : new YamlPropertySourceLoader().load(yaml.getDescription(), yaml)) {
			EnumerablePropertySource<?> enumerable = (EnumerablePropertySource<?>) source;
			for (String name : enumerable.getPropertyNames()) {
				properties.put(name, String.valueOf(enumerable.getProperty(name)));
			}
		}
		return properties;
	}

}
