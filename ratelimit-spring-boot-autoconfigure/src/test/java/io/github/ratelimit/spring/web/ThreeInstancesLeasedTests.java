package io.github.ratelimit.spring.web;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.ratelimit.core.Limit;
import io.github.ratelimit.redis.RedisTime;
import io.github.ratelimit.test.Hammer;
import io.github.ratelimit.test.RunningServer;
import io.github.ratelimit.test.ScriptCalls;
import io.github.ratelimit.test.StartedWindow;
import io.github.ratelimit.test.TestRedis;
import io.github.ratelimit.test.TestRedis.EmbeddedRedis;
import io.github.ratelimit.test.TestRedisProperties;
import io.github.ratelimit.test.WireResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;

import org.springframework.boot.WebApplicationType;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A leased policy (one global key) under concurrent load across three servlet servers on one Redis of their own: 24
 * threads send four times the limit, each request to the next server in turn. Together the servers admit at most the
 * limit, as exact mode does, and at least the limit minus what the three servers' leases can hold (a batch and a
 * low-water mark of at most a batch each); and Redis runs far
 * fewer scripts than there are requests. Periods are long enough that no permit is refilled while a test runs (and
 * leases never expire), and the fixed window's began when the servers started and lasts an hour more.
 */
class ThreeInstancesLeasedTests {

	private static final int SERVERS = 3;

	private static final int THREADS_PER_SERVER = 8;

	private static final int REQUESTS_PER_THREAD = 50;

	private static final int REQUESTS = SERVERS * THREADS_PER_SERVER * REQUESTS_PER_THREAD;

	private static final int LIMIT = 300;

	private static final int BATCH = 10;

	private static final List<String> ALGORITHMS = List.of("token-bucket", "gcra", "fixed-window");

	private static final List<RunningServer> servers = new ArrayList<>();

	private static EmbeddedRedis redis;

	@BeforeAll
	static void startThreeServersOnOneRedis() {
		redis = EmbeddedRedis.start(TestRedis.freePort());
		List<String> properties = new ArrayList<>(List.of("spring.data.redis.host=127.0.0.1",
				"spring.data.redis.port=" + redis.port(), "ratelimit.key-prefix=" + TestRedisProperties.uniquePrefix(),
				"ratelimit.overrides.refresh-interval=1h"));
		Limit window = StartedWindow.begunAt(RedisTime.micros("127.0.0.1", redis.port()), LIMIT + "/1h");
		for (String algorithm : ALGORITHMS) {
			String prefix = "ratelimit.policies." + algorithm + ".";
			String limit = algorithm.equals("fixed-window") ? window.toString() : LIMIT + "/1d";
			properties.addAll(List.of(prefix + "paths=/" + algorithm, prefix + "algorithm=" + algorithm,
					prefix + "key=global", prefix + "limits=" + limit, prefix + "lease.enabled=true",
					prefix + "lease.batch=" + BATCH, prefix + "lease.adaptive=false", prefix + "lease.max-age=1h"));
		}
		for (int i = 0; i < SERVERS; i++) {
			servers.add(RunningServer.start(WebApplicationType.SERVLET, new Class<?>[] { FilterTestApplication.class },
					properties.toArray(String[]::new)));
		}
	}

	@AfterAll
	static void stopServersAndRedis() {
		servers.forEach(RunningServer::close);
		redis.stop();
	}

	@ParameterizedTest
	@FieldSource("ALGORITHMS")
	void threeServersShouldAdmitAtMostTheLimitWithFarFewerScriptCallsThanRequests(String algorithm) throws Exception {
		StringRedisTemplate template = servers.get(0).bean(StringRedisTemplate.class);
		template.execute((RedisCallback<Void>) (connection) -> {
			connection.serverCommands().resetConfigStats();
			return null;
		});
		AtomicInteger next = new AtomicInteger();
		int admitted = Hammer.admitted(SERVERS, THREADS_PER_SERVER, REQUESTS_PER_THREAD, (ignored) -> {
			RunningServer server = servers.get(next.getAndIncrement() % SERVERS);
			WireResponse response = WireResponse.get(server.port(), "/" + algorithm);
			assertThat(response.status()).as("status of %s", response).isIn(200, 429);
			return response.status() == 200;
		});
		long scripts = ScriptCalls.of(template);
		assertThat(next.get()).isEqualTo(REQUESTS);
		// a server holds at most a batch and its low-water mark (renewing ahead), which is at most a batch
		assertThat(admitted).as("admitted by three leasing servers").isLessThanOrEqualTo(LIMIT)
			.isGreaterThanOrEqualTo(LIMIT - SERVERS * 2 * BATCH);
		assertThat(scripts).as("script calls for %d requests, %d admitted", REQUESTS, admitted)
			.isLessThan(REQUESTS / 4);
		System.out.println("Leased " + algorithm + ": " + admitted + " of " + REQUESTS + " admitted (limit " + LIMIT
				+ "), " + scripts + " script calls");
	}

}
