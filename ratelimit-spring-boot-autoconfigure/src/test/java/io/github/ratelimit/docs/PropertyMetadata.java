package io.github.ratelimit.docs;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import io.github.ratelimit.autoconfigure.ModuleResources;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The properties this module's configuration metadata documents (the file the build generates, with the additional
 * metadata merged in), as the guide names them.
 */
final class PropertyMetadata {

	private static final String METADATA = "META-INF/spring-configuration-metadata.json";

	private final Map<String, Property> properties = new LinkedHashMap<>();

	private PropertyMetadata(JsonNode metadata) {
		Map<String, List<String>> hints = new LinkedHashMap<>();
		for (JsonNode hint : metadata.path("hints")) {
			List<String> values = new ArrayList<>();
			hint.path("values").forEach((value) -> values.add(value.path("value").asString()));
			hints.put(hint.path("name").asString(), values);
		}
		for (JsonNode property : metadata.path("properties")) {
			String name = property.path("name").asString();
			JsonNode defaultValue = property.path("defaultValue");
			this.properties.put(name, new Property(name, property.path("type").asString(),
					defaultValue.isMissingNode() || defaultValue.isNull() ? null : text(defaultValue),
					property.path("description").asString(""), hints.getOrDefault(name, List.of())));
		}
	}

	/**
	 * The metadata of this module, read from the classpath.
	 * @return the metadata
	 */
	static PropertyMetadata load() {
		try (InputStream in = ModuleResources.open(METADATA)) {
			return new PropertyMetadata(JsonMapper.builder().build().readTree(in));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * The properties, by name; the metadata names a map's key {@code *}.
	 * @return the properties
	 */
	Map<String, Property> properties() {
		return this.properties;
	}

	/**
	 * Whether a name the guide writes is a property, or the start of some (a group, a map of policies): map keys (a
	 * policy's name, {@code <name>}, {@code <plan>}) match the metadata's {@code *}, list indexes are dropped, and
	 * anything below a property that binds a list or map of objects (the limits' {@code capacity} and
	 * {@code period}) is its.
	 * @param name the name, such as {@code ratelimit.policies.<name>.limits} or {@code ratelimit.policies.orders.key}
	 * @return whether it exists
	 */
	boolean documents(String name) {
		String written = name.replaceAll("\\[[^\\]]*\\]", "").replaceAll("\\.?\\*$", "").replaceAll("\\.$", "");
		for (Property property : this.properties.values()) {
			Pattern pattern = pattern(property.name());
			if (pattern.matcher(written).matches()) {
				return true;
			}
			boolean ofObjects = property.type().matches("java\\.util\\.(List|Map)<.*\\$.*>");
			if (ofObjects && Pattern.compile(pattern.pattern() + "\\..+").matcher(written).matches()) {
				return true;
			}
			for (int dot = property.name().indexOf('.'); dot > 0; dot = property.name().indexOf('.', dot + 1)) {
				if (pattern(property.name().substring(0, dot)).matcher(written).matches()) {
					return true;
				}
			}
		}
		return false;
	}

	private static Pattern pattern(String metadataName) {
		StringBuilder pattern = new StringBuilder();
		for (String part : metadataName.split("\\.")) {
			pattern.append(pattern.isEmpty() ? "" : "\\.").append(part.equals("*") ? "[^.]+" : Pattern.quote(part));
		}
		return Pattern.compile(pattern.toString());
	}

	private static String text(JsonNode value) {
		if (value.isArray()) {
			List<String> items = new ArrayList<>();
			value.forEach((item) -> items.add(item.asString()));
			return String.join(",", items);
		}
		return value.asString();
	}

	/**
	 * A property.
	 * @param name its name, {@code *} for a map's key
	 * @param type the type it binds
	 * @param defaultValue its default as the metadata writes it; {@code null} when it has none
	 * @param description its description
	 * @param values the values its hints offer
	 */
	record Property(String name, String type, String defaultValue, String description, List<String> values) {
	}

}
