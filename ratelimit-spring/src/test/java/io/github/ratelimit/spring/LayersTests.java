package io.github.ratelimit.spring;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.spi.ToolProvider;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The layers of this module, read from its compiled classes with the JDK's {@code jdeps}: no package cycles; no Spring
 * Boot type anywhere; the web-neutral packages ({@code spring}, {@code .annotation}, {@code .observation},
 * {@code .metrics}) name no servlet, Spring MVC, WebFlux or Reactor Netty type and none of the web adapters; Reactor
 * only in the three classes that load with it; each web adapter names nothing of the other stack. The classes of the
 * neutral packages that still name spring-web types are listed here, exactly: what remains before spring-web can be
 * optional (issue 26); removing one from the code fails this test until it is removed from the list too.
 */
class LayersTests {

	private static final String OURS = "io.github.ratelimit.spring";

	private static final Set<String> NEUTRAL = Set.of(OURS, OURS + ".annotation", OURS + ".observation",
			OURS + ".metrics");

	/** Classes of the neutral packages that load only with Reactor (their callers check it is present). */
	private static final Set<String> WITH_REACTOR = Set.of(OURS + ".ReactiveCurrentRequest",
			OURS + ".annotation.ReactiveRateLimitedCalls");

	/**
	 * Classes of the neutral packages that still name spring-web types, or our web package's (its headers): the
	 * exceptions extend spring-web's {@code ErrorResponseException} and carry its {@code ProblemDetail}; the annotation
	 * support writes response headers with {@code spring.web.RateLimitHeaders} (the advisor, which makes the
	 * interceptor, takes it).
	 */
	private static final Set<String> STILL_WITH_SPRING_WEB = Set.of(OURS + ".RateLimitExceededException",
			OURS + ".RateLimitOutcome", OURS + ".RateLimitProblems", OURS + ".RateLimitedCostException",
			OURS + ".RateLimiterUnavailableException", OURS + ".annotation.RateLimitedAdvisor",
			OURS + ".annotation.RateLimitedEnforcement", OURS + ".annotation.RateLimitedInterceptor");

	private static final Pattern EDGE = Pattern.compile("^\\s+(\\S+)\\s+->\\s+(\\S+)\\s");

	/** Each of our classes (nested ones as their top-level class) and the classes it names. */
	private static final Map<String, Set<String>> names = new TreeMap<>();

	@BeforeAll
	static void readClasses() {
		Path classes = Path.of("target", "classes");
		assertThat(Files.isDirectory(classes)).as("%s (run from the module)", classes.toAbsolutePath()).isTrue();
		ToolProvider jdeps = ToolProvider.findFirst("jdeps").orElseThrow();
		StringWriter out = new StringWriter();
		int status = jdeps.run(new PrintWriter(out), new PrintWriter(new StringWriter()), "-verbose:class",
				classes.toString());
		assertThat(status).as("jdeps' exit status").isZero();
		for (String line : out.toString().split("\n")) {
			Matcher edge = EDGE.matcher(line);
			if (edge.find() && edge.group(1).startsWith(OURS + ".")) {
				names.computeIfAbsent(topLevel(edge.group(1)), (k) -> new HashSet<>()).add(edge.group(2));
			}
		}
		assertThat(names).as("classes read").containsKey(OURS + ".RateLimitChain");
	}

	@Test
	void noPackageDependsOnOneThatDependsBackOnIt() {
		Map<String, Set<String>> edges = new HashMap<>();
		names.forEach((type, named) -> named.stream()
			.filter((name) -> name.startsWith(OURS + "."))
			.map(LayersTests::packageOf)
			.filter((target) -> !target.equals(packageOf(type)))
			.forEach((target) -> edges.computeIfAbsent(packageOf(type), (k) -> new TreeSet<>()).add(target)));
		List<String> cycles = new ArrayList<>();
		edges.forEach((from, targets) -> targets.forEach((to) -> {
			if (reaches(edges, to, from, new HashSet<>())) {
				cycles.add(from + " -> " + to);
			}
		}));
		assertThat(cycles).as("package dependencies that are part of a cycle").isEmpty();
	}

	@Test
	void noClassNamesSpringBoot() {
		assertThat(naming("org.springframework.boot.")).isEmpty();
	}

	@Test
	void webNeutralPackagesNameNoWebStackNorAdapter() {
		for (String stack : List.of("jakarta.servlet.", "org.springframework.web.servlet.",
				"org.springframework.web.server.", "org.springframework.web.reactive.", "reactor.netty.",
				OURS + ".web.servlet.", OURS + ".web.reactive.")) {
			assertThat(neutral(naming(stack))).as("web-neutral classes naming %s", stack).isEmpty();
		}
	}

	@Test
	void webNeutralPackagesNameReactorOnlyInTheClassesThatLoadWithIt() {
		Set<String> reactor = new TreeSet<>(neutral(naming("reactor.")));
		reactor.addAll(neutral(naming("org.reactivestreams.")));
		assertThat(reactor).containsExactlyInAnyOrderElementsOf(WITH_REACTOR);
	}

	@Test
	void webNeutralPackagesNameSpringWebOnlyInTheClassesStillListed() {
		Set<String> springWeb = new TreeSet<>(neutral(naming("org.springframework.http.")));
		springWeb.addAll(neutral(naming("org.springframework.web.")));
		springWeb.addAll(neutral(naming(OURS + ".web.")));
		assertThat(springWeb).containsExactlyInAnyOrderElementsOf(STILL_WITH_SPRING_WEB);
	}

	@Test
	void eachWebAdapterNamesNothingOfTheOtherStack() {
		Set<String> servlet = inPackage(OURS + ".web.servlet");
		Set<String> reactive = inPackage(OURS + ".web.reactive");
		for (String other : List.of("org.springframework.web.server.", "org.springframework.web.reactive.",
				"reactor.", OURS + ".web.reactive.")) {
			assertThat(naming(other)).as("servlet adapter naming %s", other).doesNotContainAnyElementsOf(servlet);
		}
		for (String other : List.of("jakarta.servlet.", "org.springframework.web.servlet.", OURS + ".web.servlet.")) {
			assertThat(naming(other)).as("WebFlux adapter naming %s", other).doesNotContainAnyElementsOf(reactive);
		}
	}

	/**
	 * The WebFlux gateway adapter loads only with Spring Cloud Gateway's WebFlux server: no other class names it, and
	 * no other names that server's types (the gateway's WebMVC server's are under {@code server.mvc}).
	 */
	@Test
	void onlyTheWebFluxGatewayAdapterNamesItOrTheGatewaysWebFluxServer() {
		Set<String> adapter = inPackage(OURS + ".web.gateway.webflux");
		assertThat(adapter).as("the adapter's classes").isNotEmpty();
		assertThat(naming(OURS + ".web.gateway.webflux.")).as("classes naming the adapter").isSubsetOf(adapter);
		Set<String> server = new TreeSet<>();
		names.forEach((type, named) -> {
			if (named.stream().anyMatch((name) -> name.startsWith("org.springframework.cloud.gateway.")
					&& !name.startsWith("org.springframework.cloud.gateway.server.mvc."))) {
				server.add(type);
			}
		});
		assertThat(server).as("classes naming the gateway's WebFlux server").isNotEmpty().isSubsetOf(adapter);
	}

	private static Set<String> naming(String prefix) {
		Set<String> naming = new TreeSet<>();
		names.forEach((type, named) -> {
			if (named.stream().anyMatch((name) -> name.startsWith(prefix) && !topLevel(name).equals(type))) {
				naming.add(type);
			}
		});
		return naming;
	}

	private static Set<String> neutral(Set<String> types) {
		Set<String> neutral = new TreeSet<>();
		types.stream().filter((type) -> NEUTRAL.contains(packageOf(type))).forEach(neutral::add);
		return neutral;
	}

	private static Set<String> inPackage(String name) {
		Set<String> types = new TreeSet<>();
		names.keySet().stream().filter((type) -> packageOf(type).equals(name)).forEach(types::add);
		return types;
	}

	private static boolean reaches(Map<String, Set<String>> edges, String from, String to, Set<String> seen) {
		if (from.equals(to)) {
			return true;
		}
		if (!seen.add(from)) {
			return false;
		}
		for (String next : edges.getOrDefault(from, Set.of())) {
			if (reaches(edges, next, to, seen)) {
				return true;
			}
		}
		return false;
	}

	private static String topLevel(String type) {
		int nested = type.indexOf('$');
		return (nested < 0) ? type : type.substring(0, nested);
	}

	private static String packageOf(String type) {
		return type.substring(0, type.lastIndexOf('.'));
	}

}
