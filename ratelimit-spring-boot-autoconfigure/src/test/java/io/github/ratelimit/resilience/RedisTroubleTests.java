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
import io.github.ratelimit.core.Limit;
import io.github.ratelimit.redis.RedisRateLimiterBackend;
import io.github.ratelimit.redis.RedisTime;
import io.github.ratelimit.spring.RateLimitCounters;
import io.github.ratelimit.test.StartedWindow;
import io.lettuce.core.resource.ClientResources;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnection;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link AbstractRedisTroubleTests} on the servlet stack and, here alone, what Redis failing does to the backend
 * itself: decided on the same path whichever stack asked, it runs once, on the stack that is cheaper to start.
 * Scripts loaded again into a restarted, empty Redis before the first decision; health down while Redis refuses
 * scripts; the local fallback and a policy's own failure mode (their answers are compared across the stacks by
 * {@code MvcWebFluxResponseContractTests}); the deny cache, with and without leases; a lease in hand while Redis is
 * down; a shadow policy's bookkeeping; leased permits given back on shutdown; {@code @RateLimited} methods and the
 * endpoint while Redis is down. {@link RedisTroubleWebFluxTests} keeps what BlockHound must watch.
 */
class RedisTroubleTests extends AbstractRedisTroubleTests {

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
	void localFallbackEnforcesTheLimitDividedByTheInstances() throws Exception {
		RunningApp app = start("ratelimit.failure-mode=local", "ratelimit.fallback.instances=2",
				"ratelimit.policies.hello.limits=6/1h", "ratelimit.policies.hello.paths=/hello");
		stopRedisUnder(app);
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
	void policyFailureModeOverridesTheGlobalOne() throws Exception {
		RunningApp app = start("ratelimit.failure-mode=open", "ratelimit.policies.hello.limits=3/1h",
				"ratelimit.policies.hello.paths=/hello", "ratelimit.policies.hello.failure-mode=closed");
		stopRedisUnder(app);
		assertThat(statuses(app, 3)).containsOnly(503);
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
	void aLeaseInHandKeepsServingWhileRedisIsDownThenTheFailureModeApplies() throws Exception {
		RunningApp app = start(GENEROUS_TIMEOUT, "ratelimit.failure-mode=closed",
				"ratelimit.policies.hello.limits=1000/1h", "ratelimit.policies.hello.paths=/hello",
				"ratelimit.policies.hello.lease.enabled=true", "ratelimit.policies.hello.lease.batch=20",
				"ratelimit.policies.hello.lease.adaptive=false", "ratelimit.policies.hello.lease.max-age=1h");
		long before = scriptCalls();
		assertThat(statuses(app, 1)).containsOnly(200);
		assertThat(scriptCalls() - before).as("one grant of 20 permits").isEqualTo(1);
		stopRedisUnder(app);
		assertThat(statuses(app, 19)).as("the 19 permits left in the lease").containsOnly(200);
		assertThat(statuses(app, 3)).as("the renewal fails: failure-mode closed").containsOnly(503);
		assertThat(count(app, "ratelimit.requests", "outcome:allowed")).isEqualTo(20);
		assertThat(count(app, "ratelimit.requests", "outcome:failed-closed")).isEqualTo(3);
		assertThat(count(app, "ratelimit.lease.hits", "policy:hello")).isEqualTo(19);
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
		// two leases of 5, and perhaps a renewal ahead of need that the spent limit refused
		assertThat(scriptCalls() - before).as("two leases of 5").isBetween(2L, 3L);
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

	@Test
	void stoppingAnApplicationGivesAFixedWindowsUnusedLeasedPermitsBackToRedis() {
		// a window begun at the test, which both applications decide in
		Limit window = StartedWindow.begunAt(RedisTime.micros("127.0.0.1", redis.port()), "100/1h");
		String[] properties = { GENEROUS_TIMEOUT, "ratelimit.key-prefix=stopping-" + UUID.randomUUID(),
				"ratelimit.policies.hello.limits=" + window, "ratelimit.policies.hello.paths=/hello",
				"ratelimit.policies.hello.algorithm=fixed-window", "ratelimit.policies.hello.lease.enabled=true",
				"ratelimit.policies.hello.lease.batch=10", "ratelimit.policies.hello.lease.adaptive=false",
				"ratelimit.policies.hello.lease.max-age=1h" };
		try (RunningApp first = RunningApp.start(redis.port(), properties)) {
			assertThat(first.get("/hello").statusCode()).isEqualTo(200);
			assertThat(first.get("/actuator/ratelimits/hello/127.0.0.1").body()).contains("\"remaining\":90");
		}
		try (RunningApp second = RunningApp.start(redis.port(), properties)) {
			assertThat(second.get("/actuator/ratelimits/hello/127.0.0.1").body())
				.as("the 9 permits left in the stopped application's lease are back").contains("\"remaining\":99");
		}
	}

	@Test
	void rateLimitedMethodsAndTheEndpointAnswerWhileRedisIsDown() throws Exception {
		RunningApp app = start(GENEROUS_TIMEOUT, "ratelimit.failure-mode=closed");
		assertThat(app.get("/annotated").statusCode()).isEqualTo(200);
		stopRedisUnder(app);
		for (int i = 0; i < 3; i++) {
			HttpResponse<String> response = app.get("/annotated");
			assertThat(response.statusCode()).isEqualTo(503);
			assertThat(response.headers().firstValue("Retry-After")).isPresent();
			assertThat(response.body()).contains("temporary-reduced-capacity", "\"policy\":\"annotated\"");
		}
		HttpResponse<String> policies = app.get("/actuator/ratelimits");
		assertThat(policies.statusCode()).isEqualTo(200);
		assertThat(policies.body()).contains("\"annotated\"", "\"failed\":3");
		// a client's state needs Redis: the operation fails (as documented) rather than guess, and at once
		assertThat(app.get("/actuator/ratelimits/annotated/127.0.0.1").statusCode()).isEqualTo(500);
		assertThat(count(app, "ratelimit.requests", "outcome:failed-closed")).isEqualTo(3);
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

}
