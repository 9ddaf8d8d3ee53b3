package io.github.ratelimit.docs;

import java.util.List;

import io.github.ratelimit.docs.DocumentationTests.Located;
import io.github.ratelimit.docs.MarkdownPage.Block;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests that {@link MarkdownPage} reads a page as GitHub renders it, and that {@link DocumentationTests} checks a
 * configuration block as its marker says.
 */
class MarkdownPageTests {

	@Test
	void anchorsShouldBeGitHubSlugsOfHeadingsOutsideFences() {
		MarkdownPage page = MarkdownPage.of(MarkdownPage.ROOT.resolve("docs/x.md"),
				List.of("# Keys and proxies", "## When Redis is down (failure modes)", "```text", "## Not a heading",
						"```", "### `@RateLimited` on [any](api.md) method", "## Keys and proxies",
						"## Keys and proxies", "## snake_case and *emphasis*, 1.2"));
		assertThat(page.anchors()).containsExactly("keys-and-proxies", "when-redis-is-down-failure-modes",
				"ratelimited-on-any-method", "keys-and-proxies-1", "keys-and-proxies-2", "snake_case-and-emphasis-12");
	}

	@Test
	void linksShouldBeFoundOutsideCodeSpansAndFences() {
		MarkdownPage page = MarkdownPage.of(MarkdownPage.ROOT.resolve("docs/x.md"),
				List.of("See [keys](keys.md#keys-and-proxies) and ![chart](a.png \"title\"), not `[x](y.md)`.",
						"```text", "[z](z.md)", "```", "[ref]: ../README.md", "<a href=\"api.md\">API</a>"));
		assertThat(page.links()).extracting(MarkdownPage.Link::target)
			.containsExactly("keys.md#keys-and-proxies", "a.png", "../README.md", "api.md");
	}

	@Test
	void blocksShouldKeepTheirLanguageMarkerAndContentWithoutTheFenceIndentation() {
		MarkdownPage page = MarkdownPage.of(MarkdownPage.ROOT.resolve("docs/x.md"),
				List.of("1. Item", "   <!-- yaml: not application.yml -->", "   ```yaml", "   a: 1", "", "     b: 2",
						"   ```", "```", "plain", "````"));
		assertThat(page.blocks()).containsExactly(
				new Block(3, 0, "   ", "yaml", List.of("a: 1", "", "  b: 2"), "<!-- yaml: not application.yml -->"),
				new Block(8, 1, "", "", List.of("plain"), "```"));
	}

	@Test
	void snippetPackageShouldBeThePageNameWithoutDashes() {
		assertThat(MarkdownPage.of(MarkdownPage.ROOT.resolve("README.md"), List.of()).snippetPackage())
			.isEqualTo("io.github.ratelimit.docs.readme");
		assertThat(MarkdownPage.of(MarkdownPage.ROOT.resolve("docs/plans-and-overrides.md"), List.of())
			.snippetPackage()).isEqualTo("io.github.ratelimit.docs.plansandoverrides");
		assertThat(MarkdownPage.of(MarkdownPage.ROOT.resolve("sample-app/README.md"), List.of()).snippetPackage())
			.isEqualTo("io.github.ratelimit.docs.sampleapp");
	}

	@Test
	void regionShouldDropCommonIndentationAndWriteTabsAsFourSpaces() throws Exception {
		assertThat(DocumentationTests.region(
				"ratelimit-spring-boot-autoconfigure/src/test/java/io/github/ratelimit/docs/readme/InvoiceJob.java",
				"outside-web"))
			.startsWith("@Service", "static class Invoices {", "",
					"    @RateLimited(name = \"invoices\", limits = \"100/1m\") // the same 100 a minute across "
							+ "every instance")
			.endsWith("}");
	}

	@Test
	void blockMarkedAsFailingShouldFailWithItsWords() {
		Located located = located("<!-- yaml: fails start-up: ratelimit.policies.broken.limits -->",
				"ratelimit.backend=in-memory", "ratelimit.policies.broken.paths=/x",
				"ratelimit.policies.broken.limits=10 a minute");
		DocumentationTests.start(located);
		Located wrongWords = located("<!-- yaml: fails start-up: words no message has -->",
				"ratelimit.backend=in-memory", "ratelimit.policies.broken.paths=/x",
				"ratelimit.policies.broken.limits=10 a minute");
		assertThatExceptionOfType(AssertionError.class).isThrownBy(() -> DocumentationTests.start(wrongWords));
		Located starts = located("<!-- yaml: fails start-up: ratelimit -->", "ratelimit.backend=in-memory");
		assertThatExceptionOfType(AssertionError.class).isThrownBy(() -> DocumentationTests.start(starts));
	}

	@Test
	void blockThatFailsStartUpShouldFailTheTestNamingItsLine() {
		Located located = located("", "ratelimit.backend=in-memory", "ratelimit.policies.broken.paths=/x",
				"ratelimit.policies.broken.limits=10 a minute");
		assertThatExceptionOfType(AssertionError.class).isThrownBy(() -> DocumentationTests.start(located))
			.withMessageContaining("docs/x.md:2 failed to start")
			.withMessageContaining("ratelimit.policies.broken.limits");
	}

	private static Located located(String marker, String... properties) {
		List<String> lines = new java.util.ArrayList<>(List.of(marker, "```properties"));
		lines.addAll(List.of(properties));
		lines.add("```");
		MarkdownPage page = MarkdownPage.of(MarkdownPage.ROOT.resolve("docs/x.md"), lines);
		return new Located(page, page.blocks().get(0));
	}

}
