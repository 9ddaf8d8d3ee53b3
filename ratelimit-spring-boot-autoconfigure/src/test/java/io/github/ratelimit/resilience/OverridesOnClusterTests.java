package io.github.ratelimit.resilience;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

import io.github.ratelimit.test.EmbeddedRedisCluster;
import io.github.ratelimit.test.Hammer;
import io.github.ratelimit.test.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An override on a real 3-master Redis Cluster: set through one instance, applied by another, and exact under
 * concurrent load from both, as the policy itself is.
 */
class OverridesOnClusterTests {

	private static final int CAPACITY = 30;

	private static EmbeddedRedisCluster cluster;

	private static RunningApp first;

	private static RunningApp second;

	@BeforeAll
	static void start() {
		cluster = EmbeddedRedisCluster.shared();
		first = start(cluster);
		second = start(cluster);
	}

	@AfterAll
	static void stop() {
		if (first != null) {
			first.close();
		}
		if (second != null) {
			second.close();
		}
	}

	private static RunningApp start(EmbeddedRedisCluster cluster) {
		return RunningApp.start(List.of("spring.data.redis.cluster.nodes=" + cluster.nodes()),
				"ratelimit.timeout=" + TestRedis.TIMEOUT.toMillis() + "ms", "ratelimit.policies.hello.limits=5/1h",
				"ratelimit.policies.hello.paths=/hello", "ratelimit.policies.hello.key=header:X-Client",
				"management.endpoint.ratelimits.access=unrestricted");
	}

	@Test
	void anOverrideOnAClusterAdmitsExactlyItsCapacityUnderConcurrentLoad() throws Exception {
		String client = "client-" + UUID.randomUUID();
		assertThat(first.post("/actuator/ratelimits/hello/" + client + "/override",
				"{\"limits\": \"" + CAPACITY + "/1h\"}").statusCode()).isEqualTo(200);
		Instant deadline = Instant.now().plusSeconds(10);
		while (!second.get("/actuator/ratelimits/hello/" + client).body().contains("\"setBy\"")) {
			assertThat(Instant.now()).as("time until the second instance applies the override").isBefore(deadline);
			Thread.sleep(20);
		}
		List<RunningApp> apps = List.of(first, second);
		int admitted = Hammer.admitted(apps.size(), 8, 10, (instance) -> {
			int status = apps.get(instance).get("/hello", "X-Client", client).statusCode();
			assertThat(status).isIn(200, 429);
			return status == 200;
		});
		assertThat(admitted).isEqualTo(CAPACITY);
	}

}
