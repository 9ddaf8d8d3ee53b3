package io.github.ratelimit.resilience;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.redis.RedisRateLimiterBackend;
import io.github.ratelimit.spring.RateLimitCounters;
import io.github.ratelimit.test.ScriptCalls;
import io.github.ratelimit.test.TestRedis;
import io.github.ratelimit.test.TestRedis.EmbeddedRedis;
import io.lettuce.core.resource.ClientResources;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A real Redis that really fails, whichever stack serves the requests: stopped and started again on the same port,
 * paused with CLIENT PAUSE, filled up, its scripts flushed under load. Every mode answers without a 5xx it did not
 * choose and counts its outcome, health follows Redis and says what is wrong, the circuit breaker opens and closes,
 * limits are exact again once it is back, and the deny cache spares Redis the calls of a client already over its
 * limit.
 */
abstract class AbstractRedisTroubleTests {

	/** For tests with Redis up that count exactly: a call cut short on a busy machine would fail open. */
	static final String GENEROUS_TIMEOUT = "ratelimit.timeout=" + TestRedis.TIMEOUT.toMillis() + "ms";

	static EmbeddedRedis redis;

	private static LettuceConnectionFactory admin;

	private final List<RunningApp> apps = new ArrayList<>();

	private final List<String> stack;

	/**
	 * Creates the tests of one stack.
	 * @param stack the properties that start the application on it
	 */
	AbstractRedisTroubleTests(String... stack) {
		this.stack = List.of(stack);
	}

	@BeforeAll
	static void startRedis() {
		redis = EmbeddedRedis.start(TestRedis.freePort());
		admin = new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", redis.port()));
		admin.afterPropertiesSet();
		admin.start();
	}

	@AfterAll
	static void stopRedis() {
		admin.destroy();
		redis.stop();
	}

	@AfterEach
	void stopApps() {
		this.apps.forEach(RunningApp::close);
		redis.restartIfStopped();
	}

	@Test
	void failOpenServesEveryRequestWhileRedisIsDownThenLimitsExactlyOnceItIsBack() throws Exception {
		RunningApp app = start(GENEROUS_TIMEOUT, "ratelimit.failure-mode=open", "ratelimit.policies.hello.limits=3/1h",
				"ratelimit.policies.hello.paths=/hello");
		assertThat(statuses(app, 4)).containsExactly(200, 200, 200, 429);
		redis.stop();
		// past the deny cache's longest answer (1 s) for the refused client; and Lettuce has seen the connection
		// closed, so decisions fail at once rather than at the (long) timeout
		Thread.sleep(1100);
		List<Integer> whileDown = statuses(app, 30);
		assertThat(whileDown).containsOnly(200);
		HttpResponse<String> health = app.get("/actuator/health/rateLimiter");
		assertThat(health.statusCode()).isEqualTo(503);
		assertThat(health.body()).contains("\"DOWN\"", "\"backend\":\"redis\"", "\"failureMode\":\"open\"",
				"RedisConnectionFailureException");
		assertThat(health.body()).as("the connection is refused, not slow").doesNotContain("Timeout");
		assertThat(app.bean(RateLimitCounters.class).of("hello").failed()).isEqualTo(30);
		assertThat(count(app, "ratelimit.requests", "outcome:failed-open")).isEqualTo(30);

		redis.restart();
		awaitHealthUp(app);
		// Redis came back empty: a fresh bucket of 3 (the refusal this instance remembered is long expired)
		assertThat(statuses(app, 5)).containsExactly(200, 200, 200, 429, 429);
	}

	@Test
	void restartedEmptyRedisHasTheScriptsBeforeTheFirstDecisionAndLimitsExactly() throws Exception {
		RunningApp app = start("ratelimit.failure-mode=open", "ratelimit.timeout=5s",
				"ratelimit.policies.hello.limits=10/1h", "ratelimit.policies.hello.paths=/hello");
		assertThat(app.bean(ClientResources.class).tracing().isEnabled())
			.as("Boot's Lettuce command observation is on, as in a real application").isTrue();
		assertThat(statuses(app, 2)).containsOnly(200);
		redis.stop();
		redis.restart();
		awaitScriptsLoaded();
		resetStats();
		ExecutorService executor = Executors.newFixedThreadPool(4);
		try {
			List<Future<List<Integer>>> load = new ArrayList<>();
			for (int i = 0; i < 4; i++) {
				load.add(executor.submit(() -> statuses(app, 5)));
			}
			List<Integer> statuses = new ArrayList<>();
			for (Future<List<Integer>> result : load) {
				statuses.addAll(result.get());
			}
			// the restarted Redis is empty: a fresh bucket of 10, every decision made by Redis, none failed open
			assertThat(statuses.stream().filter((status) -> status == 200)).hasSize(10);
			assertThat(app.bean(RateLimitCounters.class).of("hello").failed()).isZero();
		}
		finally {
			executor.shutdownNow();
		}
		Properties errors = redisCommand((connection) -> connection.serverCommands().info("errorstats"));
		assertThat(errors.stringPropertyNames()).as("no decision met NOSCRIPT").noneMatch((name) -> name.contains("NOSCRIPT"));
		Properties commands = redisCommand((connection) -> connection.serverCommands().info("commandstats"));
		assertThat(commands.getProperty("cmdstat_eval")).as("no decision sent a script's source").isNull();
	}

	@Test
	void failClosedAnswers503WithRetryAfterWhileRedisIsDown() {
		RunningApp app = start("ratelimit.failure-mode=closed", "ratelimit.policies.hello.limits=3/1h",
				"ratelimit.policies.hello.paths=/hello");
		redis.stop();
		for (int i = 0; i < 5; i++) {
			HttpResponse<String> response = app.get("/hello");
			assertThat(response.statusCode()).isEqualTo(503);
			assertThat(Long.parseLong(response.headers().firstValue("Retry-After").orElseThrow())).isPositive();
			assertThat(response.headers().firstValue("Content-Type").orElseThrow())
				.startsWith("application/problem+json");
			assertThat(response.body()).contains("temporary-reduced-capacity", "\"policy\":\"hello\"");
		}
		assertThat(count(app, "ratelimit.requests", "outcome:failed-closed")).isEqualTo(5);
	}

	@Test
	void healthIsDownWhileRedisRefusesScriptsAlthoughItAnswersPing() throws InterruptedException {
		RunningApp app = start(GENEROUS_TIMEOUT, "ratelimit.policies.hello.limits=3/1h",
				"ratelimit.policies.hello.paths=/hello");
		assertThat(app.get("/actuator/health/rateLimiter").statusCode()).isEqualTo(200);
		try {
			redisCommand((connection) -> {
				connection.serverCommands().setConfig("maxmemory", "1");
				return null;
			});
			assertThat(redisCommand(RedisConnection::ping)).isEqualTo("PONG");
			HttpResponse<String> health = app.get("/actuator/health/rateLimiter");
			assertThat(health.statusCode()).isEqualTo(503);
			assertThat(health.body()).contains("\"DOWN\"", "OOM");
		}
		finally {
			redisCommand((connection) -> {
				connection.serverCommands().setConfig("maxmemory", "0");
				return null;
			});
		}
		awaitHealthUp(app);
	}

	@Test
	void localFallbackEnforcesTheLimitDividedByTheInstances() {
		RunningApp app = start("ratelimit.failure-mode=local", "ratelimit.fallback.instances=2",
				"ratelimit.policies.hello.limits=6/1h", "ratelimit.policies.hello.paths=/hello");
		redis.stop();
		List<HttpResponse<String>> responses = new ArrayList<>();
		for (int i = 0; i < 5; i++) {
			responses.add(app.get("/hello"));
		}
		assertThat(responses).extracting(HttpResponse::statusCode).containsExactly(200, 200, 200, 429, 429);
		// the local limiter's counts are not the shared limits': no rate limit headers while it decides
		assertThat(responses).allSatisfy((response) -> assertThat(response.headers().firstValue("RateLimit")).isEmpty());
		assertThat(count(app, "ratelimit.requests", "outcome:fallback")).isEqualTo(5);
	}

	@Test
	void policyFailureModeOverridesTheGlobalOne() {
		RunningApp app = start("ratelimit.failure-mode=open", "ratelimit.policies.hello.limits=3/1h",
				"ratelimit.policies.hello.paths=/hello", "ratelimit.policies.hello.failure-mode=closed");
		redis.stop();
		assertThat(statuses(app, 3)).containsOnly(503);
	}

	@Test
	void pausedRedisIsCutShortByTheDecisionTimeoutNotTheClientTimeout() throws InterruptedException {
		RunningApp app = start("ratelimit.failure-mode=open", "ratelimit.timeout=100ms",
				"spring.data.redis.timeout=60s", "ratelimit.circuit-breaker.minimum-calls=100",
				"ratelimit.policies.hello.limits=100/1h",
				"ratelimit.policies.hello.paths=/hello");
		assertThat(statuses(app, 2)).containsOnly(200);
		// a fresh application's first calls may outlast 100 ms on a busy machine: count from here
		long failedBefore = app.bean(RateLimitCounters.class).of("hello").failed();
		double timeoutsBefore = timeouts(app);
		Duration pause = Duration.ofSeconds(6);
		long pausedUntil = System.nanoTime() + pause.toNanos();
		pause(pause);
		long start = System.nanoTime();
		List<Integer> whilePaused = statuses(app, 10);
		Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
		long failedWhilePaused = app.bean(RateLimitCounters.class).of("hello").failed() - failedBefore;
		assertThat(whilePaused).containsOnly(200);
		// each was answered by the failure mode after about 100 ms, not by Redis once the pause ended, nor by the
		// client's 60 s timeout: ten answers well within the pause (generous margin for a loaded machine)
		assertThat(failedWhilePaused).isEqualTo(10);
		assertThat(elapsed).isLessThan(pause.minusSeconds(1));
		// every one of them timed out (too few calls to open the breaker): each may still run in Redis later
		assertThat(timeouts(app) - timeoutsBefore).isEqualTo(10);
		Thread.sleep(Math.max(0, (pausedUntil - System.nanoTime()) / 1_000_000) + 100);
	}

	@Test
	void scriptFlushUnderLoadLosesNoDecision() throws Exception {
		RunningApp app = start("ratelimit.failure-mode=closed", "ratelimit.timeout=5s",
				"ratelimit.policies.hello.limits=50/1h", "ratelimit.policies.hello.paths=/hello");
		ExecutorService executor = Executors.newFixedThreadPool(4);
		try {
			List<Future<List<Integer>>> load = new ArrayList<>();
			for (int i = 0; i < 4; i++) {
				load.add(executor.submit(() -> statuses(app, 25)));
			}
			for (int i = 0; i < 10; i++) {
				redisCommand((connection) -> {
					connection.scriptingCommands().scriptFlush();
					return null;
				});
				Thread.sleep(5);
			}
			List<Integer> statuses = new ArrayList<>();
			for (Future<List<Integer>> result : load) {
				statuses.addAll(result.get());
			}
			assertThat(statuses).containsOnly(200, 429);
			assertThat(statuses.stream().filter((status) -> status == 200)).hasSize(50);
			assertThat(app.bean(RateLimitCounters.class).of("hello").failed()).isZero();
		}
		finally {
			executor.shutdownNow();
		}
	}

	@Test
	void denyCacheSparesRedisTheCallsOfAClientOverItsLimit() {
		RunningApp app = start(GENEROUS_TIMEOUT, "ratelimit.policies.hello.limits=5/1h",
				"ratelimit.policies.hello.paths=/hello");
		assertThat(statuses(app, 5)).containsOnly(200);
		long before = scriptCalls();
		long start = System.nanoTime();
		assertThat(statuses(app, 500)).containsOnly(429);
		long seconds = Duration.ofNanos(System.nanoTime() - start).toSeconds() + 1;
		// one call to learn of the refusal, then at most one a second (the deny cache's longest answer)
		assertThat(scriptCalls() - before).isLessThanOrEqualTo(1 + seconds);
	}

	@Test
	void aLeaseInHandKeepsServingWhileRedisIsDownThenTheFailureModeApplies() throws InterruptedException {
		RunningApp app = start(GENEROUS_TIMEOUT, "ratelimit.failure-mode=closed",
				"ratelimit.policies.hello.limits=1000/1h", "ratelimit.policies.hello.paths=/hello",
				"ratelimit.policies.hello.lease.enabled=true", "ratelimit.policies.hello.lease.batch=20",
				"ratelimit.policies.hello.lease.adaptive=false", "ratelimit.policies.hello.lease.max-age=1h");
		long before = scriptCalls();
		assertThat(statuses(app, 1)).containsOnly(200);
		assertThat(scriptCalls() - before).as("one grant of 20 permits").isEqualTo(1);
		redis.stop();
		Thread.sleep(500);
		assertThat(statuses(app, 19)).as("the 19 permits left in the lease").containsOnly(200);
		assertThat(statuses(app, 3)).as("the renewal fails: failure-mode closed").containsOnly(503);
		assertThat(count(app, "ratelimit.requests", "outcome:allowed")).isEqualTo(20);
		assertThat(count(app, "ratelimit.requests", "outcome:failed-closed")).isEqualTo(3);
		assertThat(count(app, "ratelimit.lease.local", "policy:hello")).isEqualTo(19);
		redis.restart();
		awaitHealthUp(app);
		assertThat(statuses(app, 1)).as("Redis came back: the next renewal is granted").containsOnly(200);
	}

	@Test
	void denyCacheRemembersARefusedRenewalOfALeasedPolicy() {
		RunningApp app = start(GENEROUS_TIMEOUT, "ratelimit.policies.hello.limits=10/1h",
				"ratelimit.policies.hello.paths=/hello", "ratelimit.policies.hello.lease.enabled=true",
				"ratelimit.policies.hello.lease.batch=5", "ratelimit.policies.hello.lease.adaptive=false");
		long before = scriptCalls();
		assertThat(statuses(app, 10)).containsOnly(200);
		assertThat(scriptCalls() - before).as("two leases of 5").isEqualTo(2);
		long start = System.nanoTime();
		assertThat(statuses(app, 300)).containsOnly(429);
		long seconds = Duration.ofNanos(System.nanoTime() - start).toSeconds() + 1;
		// one refused renewal, then at most one a second (the deny cache's longest answer)
		long renewals = scriptCalls() - before;
		assertThat(renewals - 2).isLessThanOrEqualTo(1 + seconds);
		assertThat(count(app, "ratelimit.lease.renewals", "policy:hello")).isEqualTo(renewals);
	}

	@Test
	void withoutTheDenyCacheEveryRefusalAsksRedis() {
		RunningApp app = start(GENEROUS_TIMEOUT, "ratelimit.deny-cache.enabled=false",
				"ratelimit.policies.hello.limits=5/1h", "ratelimit.policies.hello.paths=/hello");
		assertThat(statuses(app, 5)).containsOnly(200);
		long before = scriptCalls();
		assertThat(statuses(app, 50)).containsOnly(429);
		assertThat(scriptCalls() - before).isEqualTo(50);
	}

	@Test
	void shadowPolicyRecordsRefusalsAndRefusesNothing() {
		RunningApp app = start(GENEROUS_TIMEOUT, "ratelimit.policies.hello.limits=2/1h",
				"ratelimit.policies.hello.paths=/hello", "ratelimit.policies.hello.shadow=true");
		List<HttpResponse<String>> responses = new ArrayList<>();
		for (int i = 0; i < 5; i++) {
			responses.add(app.get("/hello"));
		}
		assertThat(responses).allSatisfy((response) -> {
			assertThat(response.statusCode()).isEqualTo(200);
			assertThat(response.headers().firstValue("X-RateLimit-Remaining")).isEmpty();
			assertThat(response.headers().firstValue("RateLimit")).isEmpty();
		});
		String prometheusLike = app.get("/actuator/metrics/ratelimit.requests?tag=outcome:shadow-denied").body();
		assertThat(prometheusLike).contains("\"value\":3.0");
	}

	RunningApp start(String... properties) {
		List<String> all = new ArrayList<>(this.stack);
		// polling for overrides runs a script too: out of the way of the tests that count Redis' script calls
		all.add("ratelimit.overrides.refresh-interval=1h");
		all.addAll(List.of(properties));
		all.add("ratelimit.key-prefix=trouble-" + UUID.randomUUID());
		RunningApp app = RunningApp.start(redis.port(), all.toArray(String[]::new));
		this.apps.add(app);
		return app;
	}

	private static List<Integer> statuses(RunningApp app, int requests) {
		List<Integer> statuses = new ArrayList<>();
		for (int i = 0; i < requests; i++) {
			statuses.add(app.get("/hello").statusCode());
		}
		return statuses;
	}

	static double count(RunningApp app, String meter, String tag) {
		HttpResponse<String> response = app.get("/actuator/metrics/" + meter + "?tag=" + tag);
		assertThat(response.statusCode()).as("meter %s with %s", meter, tag).isEqualTo(200);
		return Double.parseDouble(response.body().replaceAll("(?s).*\"statistic\":\"COUNT\",\"value\":([0-9.E]+).*", "$1"));
	}

	/** The {@code ratelimit.timeouts} of policy {@code hello}, 0 before the first (the meter is made on it). */
	private static double timeouts(RunningApp app) {
		HttpResponse<String> response = app.get("/actuator/metrics/ratelimit.timeouts?tag=policy:hello");
		return (response.statusCode() == 404) ? 0 : count(app, "ratelimit.timeouts", "policy:hello");
	}

	private static void awaitHealthUp(RunningApp app) throws InterruptedException {
		for (int i = 0; i < 300; i++) {
			if (app.get("/actuator/health/rateLimiter").statusCode() == 200) {
				return;
			}
			Thread.sleep(100);
		}
		throw new AssertionError("Health did not turn UP within 30 s of Redis coming back");
	}

	/**
	 * Waits until every algorithm's script is in Redis' script cache, which only the backend's reload after a
	 * reconnection puts there: no request has been sent since the restart.
	 */
	private static void awaitScriptsLoaded() throws InterruptedException {
		String[] shas = Arrays.stream(Algorithm.values())
			.map((algorithm) -> RedisRateLimiterBackend.script(algorithm).getSha1())
			.toArray(String[]::new);
		for (int i = 0; i < 300; i++) {
			List<Boolean> loaded;
			try {
				loaded = redisCommand((connection) -> connection.scriptingCommands().scriptExists(shas));
			}
			catch (RuntimeException ex) {
				loaded = List.of(false);
			}
			if (!loaded.contains(false)) {
				return;
			}
			Thread.sleep(100);
		}
		throw new AssertionError("The scripts were not loaded within 30 s of Redis coming back");
	}

	private static void resetStats() {
		redisCommand((connection) -> {
			connection.serverCommands().resetConfigStats();
			return null;
		});
	}

	private static void pause(Duration duration) {
		redisCommand((connection) -> connection.execute("CLIENT", "PAUSE".getBytes(),
				Long.toString(duration.toMillis()).getBytes()));
	}

	private static long scriptCalls() {
		return ScriptCalls.of(new StringRedisTemplate(admin));
	}

	private static <T> T redisCommand(RedisCallback<T> command) {
		return new StringRedisTemplate(admin).execute(command);
	}

}
