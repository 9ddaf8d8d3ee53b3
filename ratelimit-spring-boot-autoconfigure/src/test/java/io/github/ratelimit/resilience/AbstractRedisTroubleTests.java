package io.github.ratelimit.resilience;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import io.github.ratelimit.core.resilience.DenyCache;
import io.github.ratelimit.spring.RateLimitCounters;
import io.github.ratelimit.test.RedisOutage;
import io.github.ratelimit.test.ScriptCalls;
import io.github.ratelimit.test.TestRedis;
import io.github.ratelimit.test.TestRedis.EmbeddedRedis;
import io.lettuce.core.resource.ClientResources;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A real Redis that really fails, and how each web stack answers while it does: stopped and started again on the same
 * port, or paused with CLIENT PAUSE. Every mode answers without a 5xx it did not choose and counts its outcome, and
 * limits are exact again once Redis is back.
 * <p>
 * The scenarios here run on both stacks ({@link RedisTroubleTests}, {@link RedisTroubleWebFluxTests}) because the
 * stacks reach Redis by different paths: the servlet filter waits for its decision on the request's thread (a
 * connection opened on that thread, a bounded wait on Lettuce's future), the WebFlux filter never waits (a connection
 * opened in the background, the decision timeout a Reactor timer) and must not block under BlockHound. What is about
 * the backend alone (health, the deny cache, the local fallback, a policy's own failure mode, shadow bookkeeping,
 * leases, scripts reloaded or flushed) is decided on the same path whichever stack asked, and runs once, on the stack
 * each subclass names.
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
				"ratelimit.policies.hello.paths=/hello", "ratelimit.policies.hello.key=header:X-Client");
		assertThat(statuses(app, 4, "X-Client", "refused")).containsExactly(200, 200, 200, 429);
		long refusedAt = System.nanoTime();
		stopRedisUnder(app);
		// another client than the one refused, whose refusal the deny cache answers without Redis for a while
		List<Integer> whileDown = statuses(app, 30, "X-Client", "while-down");
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
		sleepUntil(refusedAt + DenyCache.DEFAULT_MAX_AGE.toNanos());
		// Redis came back empty: a fresh bucket of 3 for the client refused before (its refusal no longer cached)
		assertThat(statuses(app, 5, "X-Client", "refused")).containsExactly(200, 200, 200, 429, 429);
	}

	@Test
	void failClosedAnswers503WithRetryAfterWhileRedisIsDown() throws Exception {
		RunningApp app = start("ratelimit.failure-mode=closed", "ratelimit.policies.hello.limits=3/1h",
				"ratelimit.policies.hello.paths=/hello");
		stopRedisUnder(app);
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
	void pausedRedisIsCutShortByTheDecisionTimeoutNotTheClientTimeout() {
		RunningApp app = start("ratelimit.failure-mode=open", "ratelimit.timeout=100ms",
				"spring.data.redis.timeout=60s", "ratelimit.circuit-breaker.minimum-calls=100",
				"ratelimit.policies.hello.limits=100/1h", "ratelimit.policies.hello.paths=/hello");
		assertThat(statuses(app, 2)).containsOnly(200);
		// a fresh application's first calls may outlast 100 ms on a busy machine: count from here
		long failedBefore = app.bean(RateLimitCounters.class).of("hello").failed();
		double timeoutsBefore = timeouts(app);
		// scripts wait while Redis is paused for writes; the pause, as long as the client's timeout, is ended as soon
		// as the answers are in
		redisCommand((connection) -> connection.execute("CLIENT", "PAUSE".getBytes(), "60000".getBytes(),
				"WRITE".getBytes()));
		List<Integer> whilePaused;
		Duration elapsed;
		try {
			long start = System.nanoTime();
			whilePaused = statuses(app, 10);
			elapsed = Duration.ofNanos(System.nanoTime() - start);
		}
		finally {
			redisCommand((connection) -> connection.execute("CLIENT", "UNPAUSE".getBytes()));
		}
		long failedWhilePaused = app.bean(RateLimitCounters.class).of("hello").failed() - failedBefore;
		assertThat(whilePaused).containsOnly(200);
		// each was answered by the failure mode after about 100 ms, not by Redis once the pause ended, nor by the
		// client's 60 s timeout: ten answers well within the pause (generous margin for a loaded machine)
		assertThat(failedWhilePaused).isEqualTo(10);
		assertThat(elapsed).isLessThan(Duration.ofSeconds(10));
		// every one of them timed out (too few calls to open the breaker): each may still run in Redis later
		assertThat(timeouts(app) - timeoutsBefore).isEqualTo(10);
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

	/**
	 * Sends {@code GET /hello} a number of times.
	 * @param headers names and values of the requests' headers
	 * @return the statuses, in order
	 */
	static List<Integer> statuses(RunningApp app, int requests, String... headers) {
		List<Integer> statuses = new ArrayList<>();
		for (int i = 0; i < requests; i++) {
			statuses.add(app.get("/hello", headers).statusCode());
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

	/**
	 * Stops Redis, so that the application's decisions fail at once.
	 */
	static void stopRedisUnder(RunningApp app) throws Exception {
		RedisOutage.stop(redis, app.bean(ClientResources.class));
	}

	static void awaitHealthUp(RunningApp app) throws InterruptedException {
		for (int i = 0; i < 300; i++) {
			if (app.get("/actuator/health/rateLimiter").statusCode() == 200) {
				return;
			}
			Thread.sleep(100);
		}
		throw new AssertionError("Health did not turn UP within 30 s of Redis coming back");
	}

	private static void sleepUntil(long nanoTime) throws InterruptedException {
		long left = nanoTime - System.nanoTime();
		if (left > 0) {
			TimeUnit.NANOSECONDS.sleep(left);
		}
	}

	static long scriptCalls() {
		return ScriptCalls.of(new StringRedisTemplate(admin));
	}

	static <T> T redisCommand(RedisCallback<T> command) {
		return new StringRedisTemplate(admin).execute(command);
	}

}
