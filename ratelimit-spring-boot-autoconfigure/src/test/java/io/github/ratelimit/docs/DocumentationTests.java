package io.github.ratelimit.docs;

import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import io.github.ratelimit.docs.MarkdownPage.Block;
import io.github.ratelimit.docs.MarkdownPage.Link;
import io.github.ratelimit.docs.PropertyMetadata.Property;
import io.github.ratelimit.test.TestRedis;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.boot.convert.ApplicationConversionService;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.env.PropertiesPropertySourceLoader;
import org.springframework.boot.env.PropertySourceLoader;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.boot.test.context.assertj.ApplicationContextAssertProvider;
import org.springframework.boot.test.context.runner.AbstractApplicationContextRunner;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.ClassPathBeanDefinitionScanner;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ByteArrayResource;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.core.io.support.SpringFactoriesLoader.FailureHandler;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * Tests every Markdown page of the repository (the guide under {@code docs/}, the READMEs, the API, CHANGELOG and
 * CONTRIBUTING pages, the benchmark reports) against the rules of the guide:
 * <ul>
 * <li>every relative link names a file or directory that exists, and every anchor a heading (outside code fences)
 * of the page it points into, by GitHub's slug rules; {@code http(s)} links are not fetched;</li>
 * <li>every fenced block names its language, one of {@link #LANGUAGES};</li>
 * <li>every {@code java} block follows a {@code <!-- snippet: path#tag -->} line and is exactly the lines between
 * {@code // tag::tag[]} and {@code // end::tag[]} of that source (a test source of any module or a sample's
 * source), common indentation removed and leading tabs written as four spaces. A block that differs is rewritten
 * from its source and the test fails once, saying so. Sources under this module's {@code src/test/java} compile
 * with its tests; the others with their own modules;</li>
 * <li>every {@code yaml} and {@code properties} block, as the whole configuration of an application, starts this
 * module's auto-configurations (those it registers) with the Boot auto-configurations they build on (Spring Data
 * Redis, AOP, task execution, Actuator endpoints and health, Micrometer metrics and observation) and the beans of
 * the page's snippet package ({@code io.github.ratelimit.docs.<page>}, scanned when it exists), in a servlet web
 * application (a reactive one for a WebFlux page, or when the block says {@code web-application-type: reactive}),
 * so that what start-up binds and checks (properties, the filter's policies, {@code @RateLimited} methods, plan
 * beans, endpoint access, health groups) is checked. A block after {@code <!-- yaml: not application.yml -->} is
 * not started; one after {@code <!-- yaml: fails start-up: words -->} must fail to start with those words in its
 * failure's cause chain or failure analysis;</li>
 * <li>every {@code ratelimit.*} name a page writes in backticks, and every key of its configuration blocks, is a
 * property of the configuration metadata (map keys written as {@code <name>}), and every table with a
 * {@code Default} column gives a property's default as the metadata does.</li>
 * </ul>
 * What the configuration blocks do not prove: that Redis at the addresses they name answers. Boot binds
 * {@code spring.data.redis.*} and builds its connection factory from them (standalone, Sentinel or Cluster, without
 * connecting), then the test replaces that factory with one for the tests' Redis, so a block's Redis backend starts
 * on a real Redis whatever it names. Nor do they prove what happens when a request arrives.
 */
class DocumentationTests {

	/** The languages a fenced block may name. */
	static final Set<String> LANGUAGES = Set.of("yaml", "properties", "java", "bash", "json", "xml", "http", "text",
			"promql");

	private static final Pattern SNIPPET = Pattern.compile("<!--\\s*snippet:\\s*([^#\\s]+)#(\\S+)\\s*-->");

	private static final Pattern NOT_CONFIGURATION = Pattern.compile("<!--\\s*yaml:\\s*not application\\.yml\\s*-->");

	private static final Pattern FAILS = Pattern.compile("<!--\\s*yaml:\\s*fails start-up:\\s*(.+?)\\s*-->");

	/** A property name written in backticks, as a name or in an assignment ({@code ratelimit.backend=in-memory}). */
	private static final Pattern BACKTICKED_NAME = Pattern.compile("`(ratelimit\\.[a-z0-9.<>*\\[\\]_-]*[a-z0-9>*\\]])");

	private static final Pattern TAG_LINE = Pattern.compile("^\\s*// (tag|end)::[^\\[]*\\[\\]\\s*$");

	/**
	 * Names the guide writes in backticks that are not properties: the meters of {@code RateLimitMetrics}, the
	 * observation of {@code DefaultRateLimitObservationConvention} and the long task timer Micrometer makes of it.
	 */
	static final Set<String> NOT_PROPERTIES = Set.of("ratelimit.requests", "ratelimit.latency", "ratelimit.timeouts",
			"ratelimit.late.refusals", "ratelimit.lease.renewals", "ratelimit.lease.permits", "ratelimit.lease.hits",
			"ratelimit.lease.waits", "ratelimit.lease.held", "ratelimit.lease.keys", "ratelimit.lease.*",
			"ratelimit.decision", "ratelimit.decision.active", "ratelimit.wait", "ratelimit.waiters",
			"ratelimit.wait.abandoned");

	private static final String METERS = "ratelimit-spring/src/main/java/io/github/ratelimit/spring/metrics/"
			+ "RateLimitMetrics.java";

	private static final String OBSERVATION = "ratelimit-spring/src/main/java/io/github/ratelimit/spring/observation/"
			+ "DefaultRateLimitObservationConvention.java";

	/** Pages that name properties and meters of earlier versions on purpose: the changes, past benchmark runs. */
	private static final Pattern HISTORY = Pattern.compile("CHANGELOG\\.md|docs/benchmarks.*\\.md");

	private static final List<MarkdownPage> PAGES = MarkdownPage.all();

	private static final PropertyMetadata METADATA = PropertyMetadata.load();

	private static final Map<Path, MarkdownPage> BY_FILE = new HashMap<>();

	@TestFactory
	Stream<DynamicTest> linksShouldResolve() {
		return PAGES.stream().map((page) -> DynamicTest.dynamicTest(page.name(), () -> {
			List<String> broken = new ArrayList<>();
			for (Link link : page.links()) {
				String problem = problem(page, link.target());
				if (problem != null) {
					broken.add(page.name() + ":" + link.line() + ": " + link.target() + ": " + problem);
				}
			}
			assertNone("broken links", broken);
		}));
	}

	@TestFactory
	Stream<DynamicTest> fencedBlocksShouldNameALanguage() {
		return PAGES.stream().map((page) -> DynamicTest.dynamicTest(page.name(), () -> {
			List<String> bare = page.blocks()
				.stream()
				.filter((block) -> !LANGUAGES.contains(block.language()))
				.map((block) -> page.name() + ":" + block.line() + ": "
						+ (block.language().isEmpty() ? "no language" : "'" + block.language() + "'"))
				.toList();
			assertNone("fenced blocks without a language of " + LANGUAGES, bare);
		}));
	}

	@TestFactory
	Stream<DynamicTest> javaBlocksShouldBeTheirSources() {
		return blocks("java").map((located) -> DynamicTest.dynamicTest(located.toString(), () -> {
			MarkdownPage page = MarkdownPage.read(located.page().file());
			Block block = page.blocks().get(located.block().ordinal());
			Matcher marker = SNIPPET.matcher(block.marker());
			if (!marker.matches()) {
				fail("%s: a java block must follow a line <!-- snippet: <path from the repository root>#<tag> -->",
						located);
			}
			List<String> source = region(marker.group(1), marker.group(2));
			if (!source.equals(block.content())) {
				Files.writeString(page.file(), page.withBlockContent(block, source));
				fail("%s differed from %s#%s: rewritten from the source, run again and commit it", located,
						marker.group(1), marker.group(2));
			}
		}));
	}

	@TestFactory
	Stream<DynamicTest> configurationBlocksShouldStartTheApplication() {
		return Stream.concat(blocks("yaml"), blocks("properties"))
			.filter((located) -> !NOT_CONFIGURATION.matcher(located.block().marker()).matches())
			.map((located) -> DynamicTest.dynamicTest(located.toString(), () -> start(located)));
	}

	@TestFactory
	Stream<DynamicTest> propertyNamesShouldBeProperties() {
		return PAGES.stream()
			.filter((page) -> !HISTORY.matcher(page.name()).matches())
			.map((page) -> DynamicTest.dynamicTest(page.name(), () -> {
				List<String> wrong = new ArrayList<>(unknownNames(page));
				wrong.addAll(wrongDefaults(page));
				assertNone("names that are not properties, or defaults that are not theirs", wrong);
			}));
	}

	/**
	 * The README stays the front door (at most 250 lines), and it and the guide's index list every page of the
	 * guide (the benchmark reports are reached from the performance page).
	 */
	@Test
	void readmeShouldBeShortAndListEveryPageOfTheGuide() throws IOException {
		MarkdownPage readme = MarkdownPage.read(MarkdownPage.ROOT.resolve("README.md"));
		assertThat(readme.lines()).as("README.md's lines").hasSizeLessThanOrEqualTo(250);
		String index = Files.readString(MarkdownPage.ROOT.resolve("docs/README.md"));
		try (Stream<Path> files = Files.list(MarkdownPage.ROOT.resolve("docs"))) {
			files.map((file) -> file.getFileName().toString())
				.filter((name) -> name.endsWith(".md") && !name.startsWith("benchmarks") && !name.equals("README.md"))
				.forEach((name) -> {
					assertThat(String.join("\n", readme.lines())).as("README.md's guide").contains("](docs/" + name);
					assertThat(index).as("docs/README.md").contains("](" + name);
				});
		}
	}

	@Test
	void namesThatAreNotPropertiesShouldBeMetersOrTheObservation() throws IOException {
		String sources = Files.readString(MarkdownPage.ROOT.resolve(METERS))
				+ Files.readString(MarkdownPage.ROOT.resolve(OBSERVATION));
		NOT_PROPERTIES.stream()
			.filter((name) -> !name.endsWith(".*") && !name.endsWith(".active"))
			.forEach((name) -> assertThat(sources).as("a meter or observation %s", name).contains("\"" + name + "\""));
	}

	/**
	 * The names a page writes in backticks, and the keys of its configuration blocks, that are not properties.
	 */
	private static List<String> unknownNames(MarkdownPage page) {
		List<String> unknown = new ArrayList<>();
		for (int index = 0; index < page.lines().size(); index++) {
			Matcher name = BACKTICKED_NAME.matcher(page.lines().get(index));
			while (name.find()) {
				if (!NOT_PROPERTIES.contains(name.group(1)) && !METADATA.documents(name.group(1))) {
					unknown.add(page.name() + ":" + (index + 1) + ": " + name.group(1));
				}
			}
		}
		for (Block block : page.blocks()) {
			if ((block.language().equals("yaml") || block.language().equals("properties"))
					&& !NOT_CONFIGURATION.matcher(block.marker()).matches()) {
				for (PropertySource<?> source : load(block)) {
					for (String key : ((EnumerablePropertySource<?>) source).getPropertyNames()) {
						if (key.startsWith("ratelimit.") && !METADATA.documents(key)) {
							unknown.add(page.name() + ":" + block.line() + ": " + key);
						}
					}
				}
			}
		}
		return unknown;
	}

	/**
	 * The rows of the page's tables with a {@code Default} column whose property's default is not the metadata's.
	 */
	private static List<String> wrongDefaults(MarkdownPage page) {
		List<String> wrong = new ArrayList<>();
		int defaultColumn = -1;
		for (int index = 0; index < page.lines().size(); index++) {
			String line = page.lines().get(index).strip();
			if (!line.startsWith("|")) {
				defaultColumn = -1;
				continue;
			}
			List<String> cells = cells(line);
			if (defaultColumn < 0) {
				defaultColumn = cells.stream().map(String::toLowerCase).toList().indexOf("default");
				defaultColumn = (defaultColumn < 0) ? Integer.MAX_VALUE : defaultColumn;
				continue;
			}
			Matcher name = Pattern.compile("^`(ratelimit\\.[^`]+)`").matcher(cells.get(0));
			if (defaultColumn < cells.size() && name.find() && cells.get(defaultColumn).matches("`[^`]*`")) {
				String property = name.group(1).replace("<name>", "*").replace("<plan>", "*");
				Property documented = METADATA.properties().get(property);
				String value = cells.get(defaultColumn).replaceAll("^`(.*)`$", "$1").replace("\\|", "|");
				String expected = (documented != null && documented.defaultValue() != null)
						? documented.defaultValue() : "";
				if (documented != null && !value.equals(expected)) {
					wrong.add(page.name() + ":" + (index + 1) + ": default of " + property + " is '" + expected
							+ "', not '" + value + "'");
				}
			}
		}
		return wrong;
	}

	private static void assertNone(String what, List<String> problems) {
		if (!problems.isEmpty()) {
			fail(String.join("\n", problems) + "\n(" + problems.size() + " " + what + ")");
		}
	}

	private static List<String> cells(String row) {
		String inner = row.substring(1, row.endsWith("|") && row.length() > 1 ? row.length() - 1 : row.length());
		return Stream.of(inner.split("(?<!\\\\)\\|", -1)).map(String::strip).toList();
	}

	/**
	 * What is wrong with a link from a page, {@code null} when nothing is.
	 */
	private static String problem(MarkdownPage page, String target) {
		if (target.isEmpty() || target.matches("(?i)^(https?|mailto):.*")) {
			return target.isEmpty() ? "empty" : null;
		}
		if (target.matches("(?i)^[a-z][a-z0-9+.-]*:.*")) {
			return "not a relative link";
		}
		int hash = target.indexOf('#');
		String path = URLDecoder.decode((hash >= 0) ? target.substring(0, hash) : target, StandardCharsets.UTF_8);
		String anchor = (hash >= 0) ? target.substring(hash + 1) : null;
		Path file = path.isEmpty() ? page.file()
				: path.startsWith("/") ? MarkdownPage.ROOT.resolve(path.substring(1)).normalize()
						: page.file().getParent().resolve(path).normalize();
		if (!Files.exists(file)) {
			return "no such file " + MarkdownPage.ROOT.relativize(file);
		}
		if (!file.startsWith(MarkdownPage.ROOT)) {
			return "outside the repository";
		}
		if (anchor != null && file.toString().endsWith(".md")) {
			MarkdownPage linked = BY_FILE.computeIfAbsent(file, MarkdownPage::read);
			if (!linked.anchors().contains(anchor)) {
				return "no heading with anchor #" + anchor + " in " + linked.name();
			}
		}
		return null;
	}

	/**
	 * The lines of a tagged region of a source, as a page shows them.
	 */
	static List<String> region(String path, String tag) throws IOException {
		assertThat(path).as("a snippet's source: a test source of a module or a sample's source")
			.matches("[^/]+/src/test/java/.+\\.java|sample[^/]*/src/main/java/.+\\.java");
		Path file = MarkdownPage.ROOT.resolve(path);
		assertThat(file).as("source of a snippet").isRegularFile();
		List<String> lines = Files.readAllLines(file);
		int start = lines.stream().map(String::strip).toList().indexOf("// tag::" + tag + "[]");
		int end = lines.stream().map(String::strip).toList().indexOf("// end::" + tag + "[]");
		assertThat(start).as("// tag::%s[] in %s", tag, path).isNotNegative();
		assertThat(end).as("// end::%s[] after // tag::%s[] in %s", tag, tag, path).isGreaterThan(start);
		List<String> region = lines.subList(start + 1, end)
			.stream()
			.filter((line) -> !TAG_LINE.matcher(line).matches())
			.map(String::stripTrailing)
			.toList();
		String common = null;
		for (String line : region) {
			if (!line.isEmpty()) {
				String indent = line.substring(0, line.length() - line.stripLeading().length());
				common = (common == null) ? indent : commonPrefix(common, indent);
			}
		}
		int drop = (common != null) ? common.length() : 0;
		List<String> shown = new ArrayList<>();
		for (String line : region) {
			String rest = line.isEmpty() ? line : line.substring(drop);
			int tabs = 0;
			while (tabs < rest.length() && rest.charAt(tabs) == '\t') {
				tabs++;
			}
			shown.add("    ".repeat(tabs) + rest.substring(tabs));
		}
		return shown;
	}

	private static String commonPrefix(String a, String b) {
		int length = 0;
		while (length < a.length() && length < b.length() && a.charAt(length) == b.charAt(length)) {
			length++;
		}
		return a.substring(0, length);
	}

	static void start(Located located) {
		List<PropertySource<?>> configuration = load(located.block());
		String webApplicationType = null;
		for (PropertySource<?> source : configuration) {
			Object type = source.getProperty("spring.main.web-application-type");
			webApplicationType = (type != null) ? type.toString() : webApplicationType;
		}
		Matcher fails = FAILS.matcher(located.block().marker());
		String expectedFailure = fails.matches() ? fails.group(1) : null;
		if (located.page().name().contains("webflux") || "reactive".equalsIgnoreCase(webApplicationType)) {
			start(new ReactiveWebApplicationContextRunner(), located, configuration, expectedFailure);
		}
		else {
			start(new WebApplicationContextRunner(), located, configuration, expectedFailure);
		}
	}

	private static <R extends AbstractApplicationContextRunner<R, C, A>, C extends ConfigurableApplicationContext,
			A extends ApplicationContextAssertProvider<C>> void start(R runner, Located located,
					List<PropertySource<?>> configuration, String expectedFailure) {
		String snippets = located.page().snippetPackage();
		boolean scanned = DocumentationTests.class.getClassLoader().getResource(snippets.replace('.', '/')) != null;
		runner.withConfiguration(AutoConfigurations.of(autoConfigurations()))
			.withInitializer((context) -> {
				ApplicationConversionService conversion = new ApplicationConversionService();
				context.getEnvironment().setConversionService(conversion);
				context.getBeanFactory().setConversionService(conversion);
				configuration.forEach((source) -> context.getEnvironment().getPropertySources().addFirst(source));
				context.getEnvironment()
					.getPropertySources()
					.addLast(new MapPropertySource("tests", Map.of("ratelimit.timeout", "10s")));
				if (scanned) {
					new ClassPathBeanDefinitionScanner((BeanDefinitionRegistry) context).scan(snippets);
				}
			})
			.withBean(TestRedisConnection.class, TestRedisConnection::new)
			.run((context) -> {
				Throwable failure = context.getStartupFailure();
				if (expectedFailure == null) {
					if (failure != null) {
						throw new AssertionError(located + " failed to start: " + explained(failure), failure);
					}
				}
				else {
					assertThat(failure).as("%s: start-up failure", located).isNotNull();
					assertThat(explained(failure)).as("%s: start-up failure", located).contains(expectedFailure);
				}
			});
	}

	/** The messages of a failure's cause chain and the analysis of the failure analyzer that explains it. */
	private static String explained(Throwable failure) {
		StringBuilder text = new StringBuilder();
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			text.append(cause).append('\n');
		}
		for (FailureAnalyzer analyzer : SpringFactoriesLoader.forDefaultResourceLocation()
			.load(FailureAnalyzer.class, FailureHandler.handleMessage((message, ex) -> { })) ) {
			FailureAnalysis analysis = analyzer.analyze(failure);
			if (analysis != null) {
				text.append(analysis.getDescription()).append('\n').append(analysis.getAction()).append('\n');
				break;
			}
		}
		return text.toString();
	}

	private static Class<?>[] autoConfigurations() {
		List<String> boot = List.of("DataRedisAutoConfiguration", "AopAutoConfiguration",
				"TaskExecutionAutoConfiguration", "ApplicationAvailabilityAutoConfiguration",
				"EndpointAutoConfiguration", "WebEndpointAutoConfiguration", "HealthContributorAutoConfiguration",
				"HealthContributorRegistryAutoConfiguration", "HealthEndpointAutoConfiguration",
				"AvailabilityProbesAutoConfiguration", "AvailabilityHealthContributorAutoConfiguration",
				"MetricsAutoConfiguration", "CompositeMeterRegistryAutoConfiguration",
				"SimpleMetricsExportAutoConfiguration", "ObservationAutoConfiguration");
		ClassLoader classLoader = DocumentationTests.class.getClassLoader();
		List<Class<?>> classes = new ArrayList<>();
		List<String> found = new ArrayList<>();
		for (String name : ImportCandidates.load(AutoConfiguration.class, classLoader)) {
			String simpleName = name.substring(name.lastIndexOf('.') + 1);
			if (name.startsWith("io.github.ratelimit.") || (name.startsWith("org.springframework.boot.")
					&& boot.contains(simpleName))) {
				found.add(simpleName);
				classes.add(org.springframework.util.ClassUtils.resolveClassName(name, classLoader));
			}
		}
		assertThat(found).as("the Boot auto-configurations the test starts").containsAll(boot);
		return classes.toArray(Class<?>[]::new);
	}

	static List<PropertySource<?>> load(Block block) {
		PropertySourceLoader loader = block.language().equals("yaml") ? new YamlPropertySourceLoader()
				: new PropertiesPropertySourceLoader();
		String text = String.join("\n", block.content()) + "\n";
		try {
			return loader.load("block at line " + block.line(),
					new ByteArrayResource(text.getBytes(StandardCharsets.UTF_8)));
		}
		catch (IOException ex) {
			throw new AssertionError("block at line " + block.line() + " does not parse", ex);
		}
	}

	private static Stream<Located> blocks(String language) {
		return PAGES.stream()
			.flatMap((page) -> page.blocks()
				.stream()
				.filter((block) -> block.language().equals(language))
				.map((block) -> new Located(page, block)));
	}

	/**
	 * A block of a page, named by the page and the line of its opening fence.
	 */
	record Located(MarkdownPage page, Block block) {

		@Override
		public String toString() {
			return this.page.name() + ":" + this.block.line();
		}

	}

	/**
	 * Puts the tests' Redis in place of the connection factory Boot built from the configuration, which is destroyed
	 * without having connected.
	 */
	static final class TestRedisConnection implements BeanPostProcessor {

		@Override
		public Object postProcessAfterInitialization(Object bean, String beanName) {
			if (bean instanceof LettuceConnectionFactory boot) {
				boot.destroy();
				return TestRedis.get().newConnectionFactory();
			}
			if (bean instanceof RedisConnectionFactory) {
				throw new IllegalStateException("Only Lettuce is expected here, not " + bean.getClass());
			}
			return bean;
		}

	}

}
