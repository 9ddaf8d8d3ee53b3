package io.github.ratelimit.sample;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.ratelimit.sample.PromQlQuery.LabelMatcher;
import io.github.ratelimit.sample.PromQlQuery.Selector;
import io.github.ratelimit.test.TestRedis;
import io.github.ratelimit.test.TestRedis.EmbeddedRedis;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.http.MediaType;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Grafana dashboard in {@code docs/grafana} against the metrics the sample really exposes: the sample runs on a
 * Redis of the test's own, admits, denies, shadow-denies and decides on plans, then decides without Redis while
 * Redis is stalled ({@code DEBUG SLEEP}) for longer than the decision timeout (failed-open, failed-closed, fallback
 * and timeouts); its {@code /actuator/prometheus} scrape must hold every metric, label and label value the
 * dashboard's queries read.
 */
class GrafanaDashboardTests {

	private static final Path DASHBOARD = Path.of("..", "docs", "grafana", "ratelimit-dashboard.json");

	/** Labels Prometheus adds to every series of a target when it scrapes it, so never in the scrape itself. */
	private static final Set<String> TARGET_LABELS = Set.of("instance", "job");

	private static final String DATASOURCE = "${datasource}";

	private static final Pattern LABEL_VALUES = Pattern.compile("label_values\\((.+),\\s*([a-zA-Z_][a-zA-Z0-9_]*)\\)");

	private static final Duration STALL = Duration.ofSeconds(4);

	private static final String REQUESTS = "ratelimit_requests_total";

	private static final String TIMEOUTS = "ratelimit_timeouts_total";

	private static final List<String> DECIDED_BY_REDIS = List.of("allowed", "denied", "shadow-denied");

	private static final List<String> DECIDED_WITHOUT_REDIS = List.of("failed-open", "failed-closed", "fallback");

	private static final int ATTEMPTS = 5;

	private static JsonNode dashboard;

	private static EmbeddedRedis redis;

	private static RunningSample sample;

	private static PrometheusScrape scrape;

	@BeforeAll
	static void runTheSampleThroughEveryOutcomeAndScrapeIt() throws Exception {
		dashboard = JsonMapper.builder().build().readTree(DASHBOARD);
		redis = EmbeddedRedis.start(TestRedis.freePort());
		sample = RunningSample.start("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.port(),
				"ratelimit.key-prefix=grafana-dashboard-" + UUID.randomUUID(), "ratelimit.timeout=500ms",
				"ratelimit.observations.enabled=true",
				"ratelimit.policies.hello.limits=2/1h", "ratelimit.policies.orders.plans.free.limits=1/1h",
				"ratelimit.policies.hello-shadow.paths=/api/hello", "ratelimit.policies.hello-shadow.limits=1/1h",
				"ratelimit.policies.hello-shadow.shadow=true", "ratelimit.policies.orders-ip.failure-mode=closed",
				"ratelimit.policies.account-guard.failure-mode=local");
		// a decision that outlasts the 500 ms timeout on a busy machine fails open instead: such traffic is repeated
		for (int attempt = 0; attempt < ATTEMPTS && !everyWayWithRedis(); attempt++) {
			decideWithRedis();
		}
		for (int attempt = 0; attempt < ATTEMPTS && !everyWayWithoutRedis(); attempt++) {
			decideWhileRedisStalls();
		}
		scrape = scrape();
		assertThat(scrape.labelValues(REQUESTS, "outcome"))
			.as("outcomes the sample recorded, which the dashboard's queries are checked against")
			.containsAll(DECIDED_BY_REDIS)
			.containsAll(DECIDED_WITHOUT_REDIS);
		assertThat(scrape.series(REQUESTS)).as("series the sample recorded").anySatisfy((labels) -> assertThat(labels)
			.containsEntry("outcome", "denied").containsEntry("plan", "free"));
		assertThat(scrape.labelValues(REQUESTS, "plan")).as("plans the sample recorded").contains("free", "pro");
		assertThat(scrape.metrics()).as("metrics of the scrape").contains(TIMEOUTS);
	}

	@AfterAll
	static void stop() {
		if (sample != null) {
			sample.close();
		}
		if (redis != null) {
			redis.stop();
		}
	}

	private static boolean everyWayWithRedis() {
		PrometheusScrape now = scrape();
		return now.labelValues(REQUESTS, "outcome").containsAll(DECIDED_BY_REDIS) && now.series(REQUESTS).stream()
			.anyMatch((labels) -> "denied".equals(labels.get("outcome")) && "free".equals(labels.get("plan")));
	}

	private static boolean everyWayWithoutRedis() {
		PrometheusScrape now = scrape();
		return now.labelValues(REQUESTS, "outcome").containsAll(DECIDED_WITHOUT_REDIS)
				&& now.metrics().contains(TIMEOUTS);
	}

	/**
	 * Requests {@code hello} (2 an hour, beside the shadow policy {@code hello-shadow}, 1 an hour) past both limits,
	 * and orders on a {@code pro} key and past the {@code free} plan's limit on another key.
	 */
	private static void decideWithRedis() {
		for (int i = 0; i < 3; i++) {
			sample.get("/api/hello");
		}
		sample.get("/api/orders", "X-Api-Key", "pro-" + UUID.randomUUID());
		String freeKey = "free-" + UUID.randomUUID();
		sample.get("/api/orders", "X-Api-Key", freeKey);
		sample.get("/api/orders", "X-Api-Key", freeKey);
	}

	/**
	 * Stalls Redis and sends a request to a policy of each failure mode meanwhile: {@code hello} fails open,
	 * {@code orders-ip} closed (503), {@code account-guard} to its in-process fallback.
	 */
	private static void decideWhileRedisStalls() throws Exception {
		RedisClient admin = RedisClient.create(RedisURI.create("127.0.0.1", redis.port()));
		try (StatefulRedisConnection<String, String> connection = admin.connect()) {
			RedisFuture<String> stall = connection.async()
				.dispatch(CommandType.DEBUG, new StatusOutput<>(StringCodec.UTF8),
						new CommandArgs<>(StringCodec.UTF8).add("SLEEP").add(STALL.toMillis() / 1000.0));
			Thread.sleep(300);
			sample.get("/api/hello");
			sample.get("/api/orders", "X-Api-Key", "free-" + UUID.randomUUID());
			sample.get("/api/account");
			stall.get(STALL.toSeconds() + 30, TimeUnit.SECONDS);
		}
		finally {
			admin.shutdown();
		}
	}

	private static PrometheusScrape scrape() {
		return PrometheusScrape.parse(sample.client().get().uri("/actuator/prometheus").accept(MediaType.TEXT_PLAIN)
			.exchange().expectStatus().isOk().returnResult(String.class).getResponseBody());
	}

	@Test
	void dashboardIsAGrafanaModelOnThePrometheusDataSourceVariable() {
		SoftAssertions softly = new SoftAssertions();
		softly.assertThat(dashboard.path("uid").asString("")).as("uid").isNotBlank();
		softly.assertThat(dashboard.path("title").asString("")).as("title").isNotBlank();
		softly.assertThat(dashboard.path("schemaVersion").isIntegralNumber()).as("schemaVersion is a number").isTrue();
		JsonNode datasource = variable("datasource");
		softly.assertThat(datasource.path("type").asString("")).as("variable datasource's type").isEqualTo("datasource");
		softly.assertThat(datasource.path("query").asString("")).as("variable datasource's plugin").isEqualTo("prometheus");
		softly.assertThat(variable("policy").path("type").asString("")).as("variable policy's type").isEqualTo("query");
		softly.assertThat(dashboard.path("panels")).as("panels").isNotEmpty();
		Set<Integer> ids = new HashSet<>();
		for (JsonNode panel : dashboard.path("panels")) {
			String title = panel.path("title").asString("");
			softly.assertThat(title).as("a panel's title").isNotBlank();
			softly.assertThat(panel.path("id").isIntegralNumber() && ids.add(panel.path("id").asInt()))
				.as("panel '%s' has an id of its own", title).isTrue();
			softly.assertThat(panel.path("type").asString("")).as("panel '%s' type", title).isNotBlank();
			softly.assertThat(panel.path("gridPos").path("w").asInt(0)).as("panel '%s' width", title).isPositive();
			softly.assertThat(panel.path("datasource").path("uid").asString(""))
				.as("panel '%s' data source", title).isEqualTo(DATASOURCE);
			softly.assertThat(panel.path("targets")).as("panel '%s' targets", title).isNotEmpty();
			Set<String> refIds = new HashSet<>();
			for (JsonNode target : panel.path("targets")) {
				softly.assertThat(target.path("expr").asString("")).as("panel '%s' target's expr", title).isNotBlank();
				softly.assertThat(refIds.add(target.path("refId").asString("")))
					.as("panel '%s' target refId %s is its own", title, target.path("refId")).isTrue();
				softly.assertThat(target.path("datasource").path("uid").asString(DATASOURCE))
					.as("panel '%s' target's data source", title).isEqualTo(DATASOURCE);
			}
		}
		for (JsonNode variable : dashboard.path("templating").path("list")) {
			if (variable.path("type").asString("").equals("query")) {
				softly.assertThat(variable.path("datasource").path("uid").asString(""))
					.as("variable %s's data source", variable.path("name").asString("")).isEqualTo(DATASOURCE);
			}
		}
		softly.assertAll();
	}

	@Test
	void everyMetricAndLabelTheDashboardReadsIsInTheScrape() {
		SoftAssertions softly = new SoftAssertions();
		queries().forEach((where, query) -> {
			softly.assertThat(query.selectors()).as("%s reads a metric", where).isNotEmpty();
			for (Selector selector : query.selectors()) {
				softly.assertThat(scrape.metrics()).as("%s: metric", where).contains(selector.metric());
				Set<String> labels = scrape.labelNames(selector.metric());
				Set<String> used = new HashSet<>(query.groupingLabels());
				selector.matchers().forEach((matcher) -> used.add(matcher.label()));
				used.removeAll(TARGET_LABELS);
				softly.assertThat(labels).as("%s: labels of %s", where, selector.metric()).containsAll(used);
			}
		});
		softly.assertAll();
	}

	@Test
	void everyLabelMatcherOfTheDashboardSelectsSeriesOfTheScrape() {
		SoftAssertions softly = new SoftAssertions();
		queries().forEach((where, query) -> {
			for (Selector selector : query.selectors()) {
				List<LabelMatcher> matchers = selector.matchers().stream()
					.filter((matcher) -> !TARGET_LABELS.contains(matcher.label())).toList();
				Selector inScrape = new Selector(selector.metric(), matchers);
				softly.assertThat(scrape.series(selector.metric()).stream().anyMatch(inScrape::selects))
					.as("%s: %s%s selects a series of the scrape", where, selector.metric(), matchers).isTrue();
				for (LabelMatcher matcher : matchers) {
					softly.assertThat(scrape.labelValues(selector.metric(), matcher.label()))
						.as("%s: values of %s on %s", where, matcher.label(), selector.metric())
						.containsAll(matcher.alternatives());
				}
			}
		});
		softly.assertAll();
	}

	/**
	 * Every query of the dashboard: the panels' targets and the query variables' {@code label_values}.
	 * @return the queries by where they are
	 */
	private static Map<String, PromQlQuery> queries() {
		Map<String, PromQlQuery> queries = new LinkedHashMap<>();
		for (JsonNode panel : dashboard.path("panels")) {
			for (JsonNode target : panel.path("targets")) {
				queries.put("panel " + panel.path("id") + " '" + panel.path("title").asString("") + "' target "
						+ target.path("refId").asString(""), PromQlQuery.parse(target.path("expr").asString("")));
			}
		}
		for (JsonNode variable : dashboard.path("templating").path("list")) {
			if (variable.path("type").asString("").equals("query")) {
				Matcher labelValues = LABEL_VALUES.matcher(variable.path("query").path("query").asString(""));
				assertThat(labelValues.matches()).as("variable %s is a label_values query", variable.path("name").asString(""))
					.isTrue();
				queries.put("variable " + variable.path("name").asString(""),
						PromQlQuery.parse("group by (" + labelValues.group(2) + ") (" + labelValues.group(1) + ")"));
			}
		}
		return queries;
	}

	private static JsonNode variable(String name) {
		for (JsonNode variable : dashboard.path("templating").path("list")) {
			if (variable.path("name").asString("").equals(name)) {
				return variable;
			}
		}
		throw new AssertionError("The dashboard has no variable " + name);
	}

}
