package io.github.ratelimit.resilience;

import java.net.http.HttpResponse;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.UUID;

import io.github.ratelimit.test.TestRedis;
import io.github.ratelimit.test.TestRedis.EmbeddedRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Deciding a client with an override costs no extra Redis round trip: on a Redis of its own, N requests of a client
 * with an override send exactly N script calls, and Redis runs exactly the same commands as for N requests of a client
 * without one ({@code INFO commandstats}, which also counts the commands a script calls). Polling, the store's only
 * other traffic, is set to an hour here so that it does not run while the commands are counted.
 */
class OverridesRoundTripTests {

	private static final int REQUESTS = 20;

	private static EmbeddedRedis redis;

	private static LettuceConnectionFactory admin;

	private static RunningApp app;

	@BeforeAll
	static void start() {
		redis = EmbeddedRedis.start(TestRedis.freePort());
		admin = new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", redis.port()));
		admin.afterPropertiesSet();
		admin.start();
		app = RunningApp.start(redis.port(), "ratelimit.timeout=" + TestRedis.TIMEOUT.toMillis() + "ms",
				"ratelimit.overrides.refresh-interval=1h", "ratelimit.policies.hello.limits=1000/1h",
				"ratelimit.policies.hello.paths=/hello", "ratelimit.policies.hello.key=header:X-Client",
				"management.endpoint.ratelimits.access=unrestricted");
	}

	@AfterAll
	static void stop() {
		try {
			app.close();
			admin.destroy();
		}
		finally {
			redis.stop();
		}
	}

	@Test
	void aClientWithAnOverrideCostsTheSameCommandsAsOneWithout() {
		String plain = "client-" + UUID.randomUUID();
		String overridden = "client-" + UUID.randomUUID();
		assertThat(app.post("/actuator/ratelimits/hello/" + overridden + "/override", "{\"limits\": \"2000/1h\"}")
			.statusCode()).isEqualTo(200);

		Map<String, Long> before = commandCalls();
		send(plain, "1000");
		Map<String, Long> between = commandCalls();
		send(overridden, "2000");
		Map<String, Long> after = commandCalls();

		Map<String, Long> withoutOverride = delta(before, between);
		Map<String, Long> withOverride = delta(between, after);
		assertThat(withoutOverride).containsEntry("evalsha", (long) REQUESTS);
		assertThat(withOverride).containsEntry("evalsha", (long) REQUESTS);
		assertThat(withOverride).isEqualTo(withoutOverride);
	}

	private static void send(String client, String limit) {
		for (int i = 0; i < REQUESTS; i++) {
			HttpResponse<String> response = app.get("/hello", "X-Client", client);
			assertThat(response.statusCode()).isEqualTo(200);
			assertThat(response.headers().firstValue("X-RateLimit-Limit")).hasValue(limit);
		}
	}

	/** Calls of each command since Redis started, {@code INFO} itself left out. */
	private static Map<String, Long> commandCalls() {
		try (RedisConnection connection = admin.getConnection()) {
			Properties stats = connection.serverCommands().info("commandstats");
			Map<String, Long> calls = new TreeMap<>();
			stats.stringPropertyNames()
				.stream()
				.filter((name) -> name.startsWith("cmdstat_") && !name.equals("cmdstat_info"))
				.forEach((name) -> {
					String value = stats.getProperty(name);
					int start = value.indexOf("calls=") + "calls=".length();
					calls.put(name.substring("cmdstat_".length()), Long.parseLong(value.substring(start,
							value.indexOf(',', start))));
				});
			return calls;
		}
	}

	private static Map<String, Long> delta(Map<String, Long> from, Map<String, Long> to) {
		Map<String, Long> delta = new TreeMap<>();
		to.forEach((command, calls) -> {
			long more = calls - from.getOrDefault(command, 0L);
			if (more != 0) {
				delta.put(command, more);
			}
		});
		return delta;
	}

}
