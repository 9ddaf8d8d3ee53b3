package io.github.ratelimit.spring.web;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.ratelimit.redis.RedisTime;
import io.github.ratelimit.test.Hammer;
import io.github.ratelimit.test.RunningServer;
import io.github.ratelimit.test.StartedWindow;
import io.github.ratelimit.test.TestRedisProperties;
import io.github.ratelimit.test.WireResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;

import org.springframework.boot.WebApplicationType;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two plans limited exactly under concurrent load across three servlet servers (each its own application context,
 * enforcer, connection factory and Tomcat) on one Redis: clients of the {@code free} and the {@code pro} plan send
 * their requests from 24 threads at once, each request to the next server and the next client in turn, and each
 * client is admitted exactly its plan's capacity, for every algorithm. Periods are long enough that no permit is
 * refilled while a test runs, and windowed algorithms' windows began when the servers started and last an hour more.
 */
class ThreeInstancesPlansTests {

	private static final int SERVERS = 3;

	private static final int THREADS_PER_SERVER = 8;

	private static final int REQUESTS_PER_THREAD = 25;

	private static final int REQUESTS = SERVERS * THREADS_PER_SERVER * REQUESTS_PER_THREAD;

	private static final Map<String, Integer> CAPACITY_BY_PLAN = Map.of("free", 20, "pro", 60);

	/** Two clients of each plan, each sent a quarter of the requests: far more than the larger capacity. */
	private static final List<String> CLIENTS = List.of("free-1", "pro-1", "free-2", "pro-2");

	private static final List<String> ALGORITHMS = List.of("token-bucket", "gcra", "fixed-window", "sliding-window",
			"sliding-log");

	private static final List<RunningServer> servers = new ArrayList<>();

	@BeforeAll
	static void startThreeServersOnOneRedis() {
		String keyPrefix = TestRedisProperties.uniquePrefix();
		List<String> properties = new ArrayList<>(List.of("ratelimit.key-prefix=" + keyPrefix));
		long now = RedisTime.testRedisMicros();
		for (String algorithm : ALGORITHMS) {
			String prefix = "ratelimit.policies." + algorithm + ".";
			properties.addAll(List.of(prefix + "paths=/" + algorithm, prefix + "algorithm=" + algorithm,
					prefix + "key=header:X-Api-Key", prefix + "plan=expr:#key.startsWith('pro-') ? 'pro' : 'free'",
					prefix + "default-plan=free", prefix + "plans.free.limits=" + limit(algorithm, "free", now),
					prefix + "plans.pro.limits=" + limit(algorithm, "pro", now)));
		}
		for (int i = 0; i < SERVERS; i++) {
			servers.add(RunningServer.start(WebApplicationType.SERVLET, new Class<?>[] { FilterTestApplication.class },
					properties.toArray(String[]::new)));
		}
		assertThat(servers).extracting(RunningServer::webServer).containsOnly("TomcatWebServer");
	}

	/** A plan's limit: a day for the algorithms that refill, an hour begun at {@code now} for the windows. */
	private static String limit(String algorithm, String plan, long now) {
		int capacity = CAPACITY_BY_PLAN.get(plan);
		return algorithm.endsWith("-window") ? StartedWindow.begunAt(now, capacity + "/1h").toString()
				: capacity + "/1d";
	}

	@AfterAll
	static void stopServers() {
		servers.forEach(RunningServer::close);
	}

	@ParameterizedTest
	@FieldSource("ALGORITHMS")
	void threeServersOnOneRedisShouldAdmitEachClientExactlyItsPlansCapacity(String algorithm) throws Exception {
		String run = "-" + UUID.randomUUID();
		Map<String, AtomicInteger> admitted = new ConcurrentHashMap<>();
		CLIENTS.forEach((client) -> admitted.put(client, new AtomicInteger()));
		AtomicInteger next = new AtomicInteger();
		int total = Hammer.admitted(SERVERS, THREADS_PER_SERVER, REQUESTS_PER_THREAD, (ignored) -> {
			int request = next.getAndIncrement();
			RunningServer server = servers.get(request % SERVERS);
			String client = CLIENTS.get((request / SERVERS) % CLIENTS.size());
			WireResponse response = WireResponse.get(server.port(), "/" + algorithm, "X-Api-Key", client + run);
			assertThat(response.status()).as("status of %s", response).isIn(200, 429);
			if (response.status() == 200) {
				admitted.get(client).incrementAndGet();
				return true;
			}
			return false;
		});
		assertThat(next.get()).isEqualTo(REQUESTS);
		for (String client : CLIENTS) {
			int capacity = CAPACITY_BY_PLAN.get(client.substring(0, client.indexOf('-')));
			assertThat(admitted.get(client)).as("admitted for %s of %s", client, admitted).hasValue(capacity);
		}
		assertThat(total).isEqualTo(2 * CAPACITY_BY_PLAN.get("free") + 2 * CAPACITY_BY_PLAN.get("pro"));
	}

}
