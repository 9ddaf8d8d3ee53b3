package io.github.ratelimit.resilience;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.ratelimit.core.StorageKeys;
import io.github.ratelimit.test.EmbeddedRedisSentinel;
import io.github.ratelimit.test.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The starter on Redis Sentinel, configured only through {@code spring.data.redis.sentinel.*}: a real master, replica
 * and three sentinels. It limits exactly; when the master's process is killed, every request during the failover is
 * answered with no 5xx (by the failure mode, {@code open}, while no master answers); once the sentinels have promoted
 * the replica, exact limiting resumes on the new master. What was written just before the crash may or may not have
 * reached the replica, so nothing is asserted about the clients of before.
 * <p>
 * Nothing here races a deadline: decisions get the generous {@link TestRedis#TIMEOUT} (this test is about failover,
 * not about timeouts), so a call slowed by a busy machine is not turned into a failed-open 200 that would break an
 * exact count; whatever depends on the failover's pace is awaited.
 */
class SentinelFailoverTests {

	private static final List<Integer> EXACTLY_FIVE = List.of(200, 200, 200, 200, 200, 429, 429);

	private static EmbeddedRedisSentinel sentinel;

	private static RunningApp app;

	private static final String KEY_PREFIX = "sentinel-" + UUID.randomUUID();

	@BeforeAll
	static void startSentinelsAndApp() {
		sentinel = EmbeddedRedisSentinel.start();
		app = RunningApp.start(
				List.of("spring.data.redis.sentinel.master=" + EmbeddedRedisSentinel.MASTER,
						"spring.data.redis.sentinel.nodes=" + sentinel.sentinelNodes()),
				"ratelimit.failure-mode=open", "ratelimit.timeout=" + TestRedis.TIMEOUT.toMillis() + "ms",
				"ratelimit.policies.hello.limits=5/1h", "ratelimit.policies.hello.paths=/hello",
				"ratelimit.policies.hello.key=header:X-Client",
				"ratelimit.key-prefix=" + KEY_PREFIX);
	}

	@AfterAll
	static void stopAll() {
		if (app != null) {
			app.close();
		}
		if (sentinel != null) {
			sentinel.close();
		}
	}

	@Test
	void failoverAnswersWithoutA5xxThenLimitsExactlyOnTheNewMaster() throws Exception {
		int oldMaster = sentinel.masterPort();
		List<Integer> all = new ArrayList<>();
		String before = awaitExactLimiting("before", all);
		assertThat(keysOn(oldMaster, before)).as("the state of %s on the master", before).hasSize(1);

		assertThat(sentinel.killMaster()).isEqualTo(oldMaster);
		CompletableFuture<Integer> failover = CompletableFuture.supplyAsync(() -> sentinel.awaitFailover(oldMaster));
		List<Integer> during = new ArrayList<>();
		int i = 0;
		do {
			during.addAll(statuses("during-" + i++, 1));
			Thread.sleep(20);
		}
		while (!failover.isDone());
		int newMaster = failover.get(1, TimeUnit.SECONDS);
		assertThat(newMaster).isEqualTo(sentinel.replicaPort());
		assertThat(during).as("statuses while the sentinels failed over").isNotEmpty().containsOnly(200);
		all.addAll(during);

		String after = awaitExactLimiting("after", all);
		assertThat(keysOn(newMaster, after)).as("the state of %s on the new master", after).hasSize(1);
		assertThat(statuses(after + "-again", 7)).containsExactlyElementsOf(EXACTLY_FIVE);
		awaitHealthUp();
		assertThat(all).as("every status").allMatch((status) -> status < 500).containsOnly(200, 429);
	}

	/**
	 * Sends 7 requests for one fresh client after another until one is limited exactly (5 admitted, then refused).
	 * Until the application has reached the master, the failure mode lets requests through instead.
	 */
	private static String awaitExactLimiting(String name, List<Integer> all) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
		for (int i = 0; System.nanoTime() - deadline < 0; i++) {
			String client = name + "-" + i;
			List<Integer> statuses = statuses(client, 7);
			all.addAll(statuses);
			if (statuses.equals(EXACTLY_FIVE)) {
				return client;
			}
			Thread.sleep(200);
		}
		throw new AssertionError("Limiting (" + name + ") was not exact within 90 s; statuses " + all);
	}

	private static void awaitHealthUp() throws InterruptedException {
		for (int i = 0; i < 300; i++) {
			if (app.get("/actuator/health/rateLimiter").statusCode() == 200) {
				return;
			}
			Thread.sleep(100);
		}
		throw new AssertionError("The rate limiter's health did not turn UP on the new master within 30 s");
	}

	private static List<Integer> statuses(String client, int requests) {
		List<Integer> statuses = new ArrayList<>();
		for (int i = 0; i < requests; i++) {
			statuses.add(app.get("/hello", "X-Client", client).statusCode());
		}
		return statuses;
	}

	/** The keys of a client on one node, under its key as the policy keeps it (a header's, hashed). */
	private static List<String> keysOn(int port, String client) {
		return sentinel.on(port, (redis) -> redis.keys(KEY_PREFIX + ":hello:*:{" + StorageKeys.hashed(client) + "}:*"));
	}

}
