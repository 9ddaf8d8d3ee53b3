package io.github.ratelimit.docs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

import io.github.ratelimit.docs.PropertyMetadata.Property;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * Tests that {@code docs/properties.md} is the page the configuration metadata makes: every {@code ratelimit.*}
 * property (and those of the {@code ratelimits} endpoint) with its type, default and description. When it is not,
 * the test writes the page and fails, so that the build regenerates it and a stale commit fails CI.
 */
class PropertiesPageTests {

	static final Path PAGE = MarkdownPage.ROOT.resolve("docs/properties.md");

	/** The sections in the order the page gives them; a section not named here follows them, by name. */
	private static final Map<String, String> SECTIONS = sections();

	@Test
	void pageShouldListEveryPropertyOfTheMetadata() throws IOException {
		String page = page(PropertyMetadata.load());
		String committed = Files.exists(PAGE) ? Files.readString(PAGE) : "";
		if (!committed.equals(page)) {
			Files.writeString(PAGE, page);
			fail("docs/properties.md was out of date: regenerated, commit it");
		}
	}

	@Test
	void descriptionShouldStayInItsCell() {
		Property property = new Property("ratelimit.x", "java.lang.String", "a|b",
				"One | two\n  three <Name> and 'ratelimit.*'.", List.of("a", "b"));
		assertThat(row(property)).isEqualTo("| `ratelimit.x` | `String` | `a\\|b` | One \\| two three &lt;Name&gt; and "
				+ "'ratelimit.\\*'. Values: `a`, `b`. |");
	}

	/**
	 * The page for some metadata.
	 * @param metadata the metadata
	 * @return the page's text
	 */
	static String page(PropertyMetadata metadata) {
		Map<String, List<Property>> sections = new TreeMap<>((a, b) -> order(a).compareTo(order(b)));
		for (Property property : metadata.properties().values()) {
			if (property.name().startsWith("ratelimit.")
					|| property.name().startsWith("management.endpoint.ratelimits.")) {
				sections.computeIfAbsent(section(property.name()), (key) -> new ArrayList<>()).add(property);
			}
		}
		StringBuilder page = new StringBuilder("""
				# Properties

				Every property of the starter, with its type, default and description: the complete list for whoever
				writes `application.yml` or looks a setting up. The [guide](README.md)'s pages explain when to use each.
				In a name, `<name>` is a policy's name and `<plan>` a plan's name.

				This page is generated from the configuration metadata the build writes (the Javadoc of
				`RateLimitProperties`' fields and `additional-spring-configuration-metadata.json` of
				`ratelimit-spring-boot-autoconfigure`) by `PropertiesPageTests`, which writes the page and fails when it
				was out of date. Do not edit it: change the Javadoc or the additional metadata and regenerate it with

				```bash
				./mvnw -o -B test -pl ratelimit-spring-boot-autoconfigure -Dtest=PropertiesPageTests
				```
				""");
		sections.forEach((section, properties) -> {
			page.append("\n## ").append(title(section)).append("\n\n");
			page.append("| Property | Type | Default | Description |\n|---|---|---|---|\n");
			properties.forEach((property) -> page.append(row(property)).append('\n'));
		});
		return page.toString();
	}

	private static String row(Property property) {
		String description = property.description();
		if (!property.values().isEmpty()) {
			description += " Values: " + property.values().stream().map((value) -> "`" + value + "`")
				.collect(Collectors.joining(", ")) + ".";
		}
		String defaultValue = (property.defaultValue() != null) ? "`" + cell(property.defaultValue()) + "`" : "";
		String text = description.replace("<", "&lt;").replace(">", "&gt;").replace("*", "\\*");
		return "| `" + displayName(property.name()) + "` | `" + cell(simpleType(property.type())) + "` | "
				+ defaultValue + " | " + cell(text) + " |";
	}

	private static String cell(String text) {
		return text.strip().replaceAll("\\s+", " ").replace("|", "\\|");
	}

	/** The name as the guide writes it: a policy's name {@code <name>}, a plan's {@code <plan>}. */
	private static String displayName(String name) {
		return name.replace("policies.*", "policies.<name>").replace("plans.*", "plans.<plan>").replace("*", "<key>");
	}

	/** The type without packages or enclosing classes: {@code List<LimitProperties>}. */
	private static String simpleType(String type) {
		return type.replaceAll("(?:[a-z][a-z0-9_]*\\.)+", "").replaceAll("[A-Za-z0-9_]+\\$", "");
	}

	/**
	 * The section of a property: {@code general} for those directly under {@code ratelimit}, {@code plans} and
	 * {@code lease} for those of a policy's plans and lease, {@code policies} for a policy's others, {@code endpoint}
	 * for the endpoint's, else the name's second segment.
	 */
	private static String section(String name) {
		String[] parts = name.split("\\.");
		if (parts[0].equals("management")) {
			return "endpoint";
		}
		if (parts.length == 2) {
			return "general";
		}
		if (parts[1].equals("policies")) {
			return (parts.length > 4 && (parts[3].equals("plans") || parts[3].equals("lease"))) ? parts[3] : "policies";
		}
		return parts[1];
	}

	private static String order(String section) {
		List<String> known = new ArrayList<>(SECTIONS.keySet());
		int index = known.indexOf(section);
		return (index >= 0) ? String.format(Locale.ROOT, "%03d", index) : "999" + section;
	}

	private static String title(String section) {
		String title = SECTIONS.get(section);
		return (title != null) ? title
				: Character.toUpperCase(section.charAt(0)) + section.substring(1).replace('-', ' ');
	}

	private static Map<String, String> sections() {
		Map<String, String> sections = new LinkedHashMap<>();
		sections.put("general", "General");
		sections.put("policies", "Policies");
		sections.put("plans", "Plans of a policy");
		sections.put("lease", "Leases of a policy");
		sections.put("filter", "Filter");
		sections.put("ip", "Client IP addresses");
		sections.put("circuit-breaker", "Circuit breaker");
		sections.put("fallback", "Fallback while the backend is down");
		sections.put("deny-cache", "Deny cache");
		sections.put("in-memory", "In-memory backend");
		sections.put("redis", "Redis");
		sections.put("overrides", "Overrides");
		sections.put("observations", "Observations");
		sections.put("endpoint", "Actuator endpoint");
		return sections;
	}

}
