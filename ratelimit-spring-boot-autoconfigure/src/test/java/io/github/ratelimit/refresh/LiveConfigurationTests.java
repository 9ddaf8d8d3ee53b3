package io.github.ratelimit.refresh;

import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.ratelimit.core.Limit;
import io.github.ratelimit.redis.RedisTime;
import io.github.ratelimit.test.StartedWindow;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.context.properties.ConfigurationPropertiesBindException;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Live configuration in a servlet application: Spring Cloud's refresh applies new {@code ratelimit.policies.*} to the
 * filter and to {@code @RateLimited} without a restart, and rejects an invalid configuration, logging the property,
 * while the running policies stay. One application serves every test: each starts from the start-up configuration
 * (restored after the test before it) and sends its requests as clients of its own.
 */
@ExtendWith(OutputCaptureExtension.class)
class LiveConfigurationTests {

	private static final String[] STARTUP = { "ratelimit.policies.api.limits=3/1m", "ratelimit.policies.api.paths=/api/**",
			"ratelimit.policies.api.key=header:X-Client", "ratelimit.policies.calls.limits=2/1m" };

	@TempDir
	static Path directory;

	private static RefreshableApp app;

	private final String test = UUID.randomUUID().toString();

	@BeforeAll
	static void start() {
		app = RefreshableApp.start(directory, WebApplicationType.SERVLET, STARTUP);
	}

	@AfterAll
	static void stop() {
		app.close();
	}

	@AfterEach
	void restoreTheStartupConfiguration() {
		app.reconfigure(STARTUP);
	}

	@Test
	void refreshShouldApplyNewLimitsNewPoliciesAndRemovals(CapturedOutput output) {
		assertAdmitted("/api/a", client("a"), 3);
		assertThat(app.reconfigure("ratelimit.policies.api.limits=5/1m", "ratelimit.policies.api.paths=/api/**",
				"ratelimit.policies.api.key=header:X-Client", "ratelimit.policies.calls.limits=2/1m",
				"ratelimit.policies.orders.limits=1/1m", "ratelimit.policies.orders.paths=/orders/**"))
			.contains("ratelimit.policies.api.limits", "ratelimit.policies.orders.limits");
		assertThat(output).contains("Rate limit configuration refreshed: added orders (1/1m")
			.contains("changed api (5/1m");
		assertAdmitted("/api/a", client("a"), 5);
		assertThat(app.get("/api/a", "X-Client", client("a")).headers().firstValue("RateLimit-Policy"))
			.hasValueSatisfying((policy) -> assertThat(policy).contains("q=5"));
		assertAdmitted("/orders/1", client("a"), 1);
		app.reconfigure(STARTUP);
		assertThat(output).contains("removed orders");
		for (int i = 0; i < 5; i++) {
			HttpResponse<String> response = app.get("/orders/1");
			assertThat(response.statusCode()).isEqualTo(200);
			assertThat(response.headers().firstValue("RateLimit-Policy")).isEmpty();
		}
	}

	@Test
	void refreshShouldAddPlansAndKeepTheStateOfUnchangedPolicies(CapturedOutput output) {
		for (int i = 0; i < 2; i++) {
			assertThat(app.get("/api/a", "X-Client", client("kept")).statusCode()).isEqualTo(200);
		}
		app.reconfigure(STARTUP[0], STARTUP[1], STARTUP[2], STARTUP[3],
				"ratelimit.policies.plans.paths=/plans/**", "ratelimit.policies.plans.key=header:X-Client",
				"ratelimit.policies.plans.plan=expr:#key.startsWith('pro-') ? 'pro' : 'free'",
				"ratelimit.policies.plans.default-plan=free", "ratelimit.policies.plans.plans.free.limits=1/1m",
				"ratelimit.policies.plans.plans.pro.limits=3/1m");
		assertThat(output).contains("added plans (plan expr:", "plans free (1/1m, token-bucket, default), pro (3/1m")
			.doesNotContain("changed api");
		assertAdmitted("/plans/1", client("pro-a"), 3);
		assertAdmitted("/plans/1", client("b"), 1);
		assertThat(app.get("/plans/1", "X-Client", client("pro-a")).headers().firstValue("RateLimit-Policy"))
			.hasValueSatisfying((policy) -> assertThat(policy).contains("plans-pro"));
		// the unchanged policy kept its clients' state: one request of three was left
		assertAdmitted("/api/a", client("kept"), 1);
	}

	@Test
	void refreshShouldApplyToRateLimitedMethods(CapturedOutput output) {
		assertCalls("/calls", 2);
		app.reconfigure(STARTUP[0], STARTUP[1], STARTUP[2], "ratelimit.policies.calls.limits=4/1m",
				"ratelimit.policies.own.limits=1/1m");
		// configuration wins over an annotation's own limits, as at start-up
		assertCalls("/calls", 4);
		assertCalls("/own", 1);
		app.reconfigure(STARTUP);
		// the annotation's own limits apply again once configuration no longer names the policy
		assertCalls("/own", 2);
		assertThat(output).contains("removed own");
	}

	@Test
	void invalidConfigurationShouldBeRejectedNamingThePropertyAndTheRunningPoliciesStay(CapturedOutput output) {
		app.reconfigure("ratelimit.policies.api.limits=banana", STARTUP[1], STARTUP[2], STARTUP[3]);
		assertThat(output).contains("Rate limit configuration refresh rejected")
			.contains("'ratelimit.policies.api.limits[0]'");
		assertAdmitted("/api/a", client("a"), 3);
		app.reconfigure(STARTUP[0], STARTUP[1], "ratelimit.policies.api.key=bogus:x", STARTUP[3]);
		assertThat(output).contains("'ratelimit.policies.api.key'");
		assertAdmitted("/api/a", client("b"), 3);
		// Spring Cloud's rebinding refuses an unknown or unconvertible property too, leaving the properties bean
		// half bound (here with the new limits, then with no policies): the running policies stay all the same
		reconfigureIgnoringRebinding("ratelimit.policies.api.limits=10/1m", STARTUP[1], STARTUP[2], STARTUP[3],
				"ratelimit.policies.api.limitz=10/1m");
		assertThat(output).contains("'ratelimit.policies.api.limitz'");
		assertAdmitted("/api/a", client("c"), 3);
		reconfigureIgnoringRebinding("ratelimit.policies.api.limits=10/1m", STARTUP[1], STARTUP[2], STARTUP[3],
				"ratelimit.policies.api.algorithm=bogus");
		assertThat(output).contains("'ratelimit.policies.api.algorithm'");
		assertAdmitted("/api/a", client("e"), 3);
		// an annotation without limits needs its policy configured, as at start-up
		app.reconfigure(STARTUP[0], STARTUP[1], STARTUP[2]);
		assertThat(output).contains("No rate limit policy 'calls'");
		assertCalls("/calls", 2);
		app.reconfigure(STARTUP[0], STARTUP[1], STARTUP[2], "ratelimit.policies.calls.limits=2/1m",
				"ratelimit.policies.api.limits=4/1m");
		assertAdmitted("/api/a", client("d"), 4);
	}

	@Test
	void settingsThatNeedARestartShouldBeLoggedAndNotApplied(CapturedOutput output) {
		app.reconfigure(STARTUP[0], STARTUP[1], STARTUP[2], STARTUP[3], "ratelimit.headers=legacy");
		assertThat(output).contains("apply only at the next start: ratelimit.headers");
		assertThat(app.get("/api/a", "X-Client", client("a")).headers().firstValue("RateLimit-Policy")).isPresent();
		reconfigureIgnoringRebinding(STARTUP[0], STARTUP[1], STARTUP[2], STARTUP[3], "ratelimit.timout=1s");
		assertThat(output).contains("refresh rejected").contains("'ratelimit.timout'");
	}

	@Test
	void refreshThroughTheActuatorEndpointShouldApply() throws Exception {
		assertAdmitted("/api/a", client("a"), 3);
		app.write("ratelimit.policies.api.limits=6/1m", STARTUP[1], STARTUP[2], STARTUP[3]);
		HttpResponse<String> refreshed = app.post("/actuator/refresh");
		assertThat(refreshed.statusCode()).isEqualTo(200);
		assertThat(refreshed.body()).contains("ratelimit.policies.api.limits");
		assertAdmitted("/api/a", client("a"), 6);
	}

	/**
	 * Four clients send requests without pause while the limit is changed ten times, between {@code 4/1h} and
	 * {@code 6/1h}, each change kept until every client has been refused at the new limit. Each answer names one of
	 * the two limits, alike in both header styles; each client is admitted exactly each limit's capacity (an hour-long
	 * period gives back no permit while the test runs, and each limit keeps its state when the other is in force).
	 */
	@Test
	void requestsDuringRefreshesShouldEachBeDecidedByOneSetOfPolicies() throws Exception {
		Map<String, String[]> configurations = Map.of("4",
				new String[] { "ratelimit.policies.api.limits=4/1h", STARTUP[1], STARTUP[2], STARTUP[3] }, "6",
				new String[] { "ratelimit.policies.api.limits=6/1h", STARTUP[1], STARTUP[2], STARTUP[3] });
		app.reconfigure(configurations.get("4"));
		List<String> clients = List.of(client("w"), client("x"), client("y"), client("z"));
		Queue<Answer> answers = new ConcurrentLinkedQueue<>();
		Map<String, String> lastRefusedAt = new ConcurrentHashMap<>();
		AtomicBoolean running = new AtomicBoolean(true);
		ExecutorService threads = Executors.newFixedThreadPool(clients.size());
		List<Future<?>> load = new ArrayList<>();
		try {
			for (String client : clients) {
				load.add(threads.submit(() -> {
					while (running.get()) {
						Answer answer = Answer.of(client, app.get("/api/x", "X-Client", client));
						answers.add(answer);
						if (answer.status() == 429) {
							lastRefusedAt.put(client, answer.limit());
						}
					}
				}));
			}
			for (int i = 0; i < 10; i++) {
				String limit = (i % 2 == 0) ? "6" : "4";
				lastRefusedAt.clear();
				app.reconfigure(configurations.get(limit));
				awaitEveryClientRefusedAt(limit, clients, lastRefusedAt);
			}
		}
		finally {
			running.set(false);
			threads.shutdown();
		}
		for (Future<?> client : load) {
			client.get(60, TimeUnit.SECONDS);
		}
		assertThat(answers).allSatisfy((answer) -> {
			assertThat(answer.status()).as("%s", answer).isIn(200, 429);
			assertThat(answer.limit()).as("%s", answer).isIn("4", "6");
			assertThat(answer.policy()).as("%s", answer).isEqualTo("\"api\";q=" + answer.limit() + ";w=3600");
		});
		for (String client : clients) {
			for (String limit : configurations.keySet()) {
				assertThat(answers.stream().filter((answer) -> answer.is(client, limit, 200)))
					.as("requests of %s admitted at %s/1h", client, limit)
					.hasSize(Integer.parseInt(limit));
			}
		}
	}

	@Test
	void refreshShouldGiveBackTheLeasesOfReplacedLimitersAndRejectALeaseTheAlgorithmCannotHave(CapturedOutput output) {
		// a window begun at the test, in which every request here is decided
		Limit window = StartedWindow.begunAt(RedisTime.testRedisMicros(), "10/1h");
		String[] leased = { "ratelimit.policies.api.limits=" + window, STARTUP[1], STARTUP[2],
				"ratelimit.policies.api.algorithm=fixed-window", "ratelimit.policies.api.lease.enabled=true",
				"ratelimit.policies.api.lease.batch=5", "ratelimit.policies.api.lease.adaptive=false",
				"ratelimit.policies.api.lease.max-age=1h", STARTUP[3] };
		app.reconfigure(leased);
		assertThat(output).contains("changed api (" + window + ", fixed-window, leased (batch 5, max-age 1h)");
		assertThat(app.get("/api/a", "X-Client", client("a")).statusCode()).isEqualTo(200);
		// a refresh builds every policy's limiter afresh: the replaced one gives its 4 unused permits back (its lease
		// would otherwise hold them for an hour)
		String[] more = Arrays.copyOf(leased, leased.length + 2);
		more[leased.length] = "ratelimit.policies.orders.limits=1/1m";
		more[leased.length + 1] = "ratelimit.policies.orders.paths=/orders/**";
		app.reconfigure(more);
		assertThat(output).contains("Rate limit configuration refreshed: added orders");
		assertAdmitted("/api/a", client("a"), 9);
		app.reconfigure(STARTUP[0], STARTUP[1], STARTUP[2], "ratelimit.policies.api.algorithm=sliding-window",
				"ratelimit.policies.api.lease.enabled=true", STARTUP[3]);
		assertThat(output).contains("Rate limit configuration refresh rejected")
			.contains("'ratelimit.policies.api.lease.enabled'");
		assertAdmitted("/api/a", client("b"), 10);
	}

	/** A refresh that Spring Cloud's rebinding of the properties bean fails, after this starter has logged why. */
	private void reconfigureIgnoringRebinding(String... configuration) {
		assertThatExceptionOfType(ConfigurationPropertiesBindException.class)
			.isThrownBy(() -> app.reconfigure(configuration));
	}

	private void assertAdmitted(String path, String client, int admitted) {
		for (int i = 0; i < admitted; i++) {
			assertThat(app.get(path, "X-Client", client).statusCode()).as("request %d of %s", i + 1, client)
				.isEqualTo(200);
		}
		assertThat(app.get(path, "X-Client", client).statusCode()).isEqualTo(429);
	}

	private void assertCalls(String path, int admitted) {
		assertAdmitted(path, client("calls"), admitted);
	}

	/** A client of this test alone. */
	private String client(String name) {
		return name + "-" + this.test;
	}

	/**
	 * Waits until each client's latest refusal was at the given limit, with a generous bound for a loaded machine.
	 */
	private static void awaitEveryClientRefusedAt(String limit, List<String> clients, Map<String, String> lastRefusedAt)
			throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
		while (!clients.stream().allMatch((client) -> limit.equals(lastRefusedAt.get(client)))) {
			assertThat(System.nanoTime() - deadline).as("time waited for every client to be refused at %s", limit)
				.isNegative();
			Thread.sleep(5);
		}
	}

	/** A response of the application to one client, with the limit each header style names. */
	private record Answer(String client, int status, String limit, String policy) {

		static Answer of(String client, HttpResponse<String> response) {
			return new Answer(client, response.statusCode(),
					response.headers().firstValue("X-RateLimit-Limit").orElse("none"),
					response.headers().firstValue("RateLimit-Policy").orElse("none"));
		}

		boolean is(String client, String limit, int status) {
			return this.client.equals(client) && this.limit.equals(limit) && this.status == status;
		}

	}

}
