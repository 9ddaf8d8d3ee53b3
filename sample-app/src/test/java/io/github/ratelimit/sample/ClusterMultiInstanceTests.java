package io.github.ratelimit.sample;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import io.github.ratelimit.core.StorageKeys;
import io.github.ratelimit.spring.RateLimitCounters;
import io.github.ratelimit.test.EmbeddedRedisCluster;
import io.lettuce.core.resource.ClientResources;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Three instances of the sample, freshly started on a fresh 3-master Redis Cluster, configured only with
 * {@code spring.data.redis.cluster.nodes}, with Boot's Lettuce command observation on as in a real application: one
 * API key's requests from concurrent threads across the instances, the very first decisions included, are admitted
 * exactly up to the multi-limit policy {@code 100/1d,1000/7d}, none failed open and none met NOSCRIPT; and many API
 * keys spread over every master. Exact whatever the machine's pace: the periods are long enough that no permit is
 * refilled while the test runs, and decisions get {@link RunningSample}'s generous timeout, so that only a real
 * failure, never a slow answer, is counted as failed open.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterMultiInstanceTests {

	private static final String KEY_PREFIX = "cluster-instances-" + UUID.randomUUID();

	private static EmbeddedRedisCluster cluster;

	private static final List<RunningSample> instances = new ArrayList<>();

	@BeforeAll
	static void startClusterAndThreeInstances() {
		cluster = EmbeddedRedisCluster.shared();
		for (int i = 0; i < 3; i++) {
			instances.add(RunningSample.start("spring.data.redis.cluster.nodes=" + cluster.nodes(),
					"ratelimit.key-prefix=" + KEY_PREFIX, "ratelimit.policies.orders.plans.free.limits=100/1d,1000/7d",
					// every request comes from one address: the per-IP limit must not bind before the API key's
					"ratelimit.policies.orders-ip.limits=10000/1h"));
		}
	}

	@AfterAll
	static void stopAll() {
		instances.forEach(RunningSample::close);
	}

	@Test
	@Order(1)
	void oneApiKeyFromConcurrentThreadsAcrossThreeInstancesIsAdmittedExactlyTheMultiLimit() throws Exception {
		assertThat(instances).allSatisfy((instance) -> assertThat(instance.bean(ClientResources.class).tracing().isEnabled())
			.as("Boot's Lettuce command observation is on").isTrue());
		String apiKey = "key-" + UUID.randomUUID();
		List<Callable<int[]>> clients = new ArrayList<>();
		for (int thread = 0; thread < 12; thread++) {
			RunningSample instance = instances.get(thread % instances.size());
			clients.add(() -> {
				int[] admittedAndRefused = new int[2];
				for (int i = 0; i < 20; i++) {
					HttpStatusCode status = instance.get("/api/orders", "X-Api-Key", apiKey);
					assertThat(status).isIn(HttpStatus.OK, HttpStatus.TOO_MANY_REQUESTS);
					admittedAndRefused[status.is2xxSuccessful() ? 0 : 1]++;
				}
				return admittedAndRefused;
			});
		}
		int admitted = 0;
		int refused = 0;
		ExecutorService executor = Executors.newFixedThreadPool(clients.size());
		try {
			for (Future<int[]> result : executor.invokeAll(clients)) {
				admitted += result.get()[0];
				refused += result.get()[1];
			}
		}
		finally {
			executor.shutdown();
		}
		assertThat(admitted).isEqualTo(100);
		assertThat(refused).isEqualTo(140);
		assertThat(instances).allSatisfy((instance) -> assertThat(instance.bean(RateLimitCounters.class).of("orders")
			.failed()).as("decisions failed open").isZero());
		for (int port : cluster.ports()) {
			String errors = cluster.on(port, (redis) -> redis.info("errorstats"));
			assertThat(errors).as("NOSCRIPT on node " + port)
				.doesNotContain("NOSCRIPT");
		}
		Map<Integer, List<String>> keys = cluster
			.keysByMaster(KEY_PREFIX + ":orders:*:{" + StorageKeys.hashed(apiKey) + "}:*");
		assertThat(keys.values().stream().filter((onMaster) -> !onMaster.isEmpty()))
			.as("both limits' keys on one master").singleElement()
			.satisfies((onMaster) -> assertThat(onMaster).hasSize(2));
	}

	@Test
	@Order(2)
	void manyApiKeysLandOnEveryMaster() {
		String batch = UUID.randomUUID().toString();
		for (int i = 0; i < 60; i++) {
			assertThat(instances.get(i % 3).get("/api/orders", "X-Api-Key", batch + "-" + i)).isEqualTo(HttpStatus.OK);
		}
		// the API keys are kept hashed, so the batch's keys are found by their hashed forms
		Set<String> clients = IntStream.range(0, 60)
			.mapToObj((i) -> "{" + StorageKeys.hashed(batch + "-" + i) + "}")
			.collect(Collectors.toSet());
		Map<Integer, List<String>> keys = new HashMap<>();
		cluster.keysByMaster(KEY_PREFIX + ":orders:*").forEach((port, onMaster) -> keys.put(port,
				onMaster.stream().filter((key) -> clients.stream().anyMatch(key::contains)).toList()));
		assertThat(keys.values().stream().mapToInt(List::size).sum()).isEqualTo(120);
		assertThat(keys).hasSize(3).allSatisfy((port, onMaster) -> assertThat(onMaster).isNotEmpty());
	}

}
