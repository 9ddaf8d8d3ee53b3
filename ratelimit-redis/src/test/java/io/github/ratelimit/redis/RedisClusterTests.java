package io.github.ratelimit.redis;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;

import io.github.ratelimit.core.AbstractRateLimiterBackendTests;
import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.Policy;
import io.github.ratelimit.core.StorageKeys;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.test.EmbeddedRedisCluster;
import io.github.ratelimit.test.Hammer;
import io.github.ratelimit.test.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What only a real 3-master Redis Cluster can show: several limiter instances (each with its own cluster connection
 * factory, as separate app servers would have) admit exactly the limit of single- and multi-limit policies; clients'
 * keys spread over every master while each decision's keys share one slot (no CROSSSLOT, hostile keys included);
 * scripts missing on a node (NOSCRIPT) and a slot moved to another master mid-traffic (ASK, then MOVED) cost no
 * decision and no permit.
 */
class RedisClusterTests {

	private static final int INSTANCES = 4;

	private static final int THREADS_PER_INSTANCE = 8;

	private static final int ATTEMPTS_PER_THREAD = 10;

	private static EmbeddedRedisCluster cluster;

	private static final List<LettuceConnectionFactory> servers = new ArrayList<>();

	@BeforeAll
	static void startCluster() {
		cluster = EmbeddedRedisCluster.shared();
		for (int i = 0; i < INSTANCES; i++) {
			servers.add(cluster.newConnectionFactory());
		}
	}

	@AfterAll
	static void stopCluster() {
		servers.forEach(LettuceConnectionFactory::destroy);
	}

	static Stream<Arguments> policies() {
		return Stream.of(Algorithm.values())
			.flatMap((algorithm) -> Stream.of(Arguments.of(algorithm, List.of("100/1h")),
					Arguments.of(algorithm, List.of("100/1h", "500/1d"))));
	}

	@ParameterizedTest(name = "{0} {1}")
	@MethodSource("policies")
	void severalInstancesAndThreadsAdmitExactlyTheLimitOfOneClient(Algorithm algorithm, List<String> limits)
			throws Exception {
		Policy policy = policy("cluster-race", algorithm, limits.toArray(String[]::new));
		List<RateLimiter> instances = instances(policy);
		String client = "client-" + UUID.randomUUID();
		int admitted = hammer(instances, client);
		assertThat(admitted).isEqualTo(100);
		assertThat(instances.get(0).peek(client).remaining()).isZero();
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void clientsKeysLandOnEveryMasterEachClientOnOne(Algorithm algorithm) {
		Policy policy = policy("spread", algorithm, "10/1h", "100/1d");
		RateLimiter limiter = instances(policy).get(0);
		StorageKeys layout = new StorageKeys("ratelimit", policy);
		int clients = 300;
		for (int i = 0; i < clients; i++) {
			assertThat(limiter.tryAcquire("client-" + i).allowed()).isTrue();
		}
		Map<Integer, List<String>> keysByMaster = cluster.keysByMaster("ratelimit:" + policy.name() + ":*");
		assertThat(keysByMaster.values().stream().mapToInt(List::size).sum()).isEqualTo(2 * clients);
		for (int i = 0; i < clients; i++) {
			List<String> keys = layout.keys("client-" + i);
			int slot = cluster.slotOf(keys.get(0));
			assertThat(cluster.slotOf(keys.get(1))).isEqualTo(slot);
			assertThat(keysByMaster.get(cluster.masterOf(slot))).as("the master serving slot %d", slot)
				.containsAll(keys);
		}
		// 300 clients hashed over 3 masters: about 100 each; fewer than 60 on one would be a broken spread
		assertThat(keysByMaster.values()).allSatisfy((keys) -> assertThat(keys).hasSizeGreaterThan(2 * 60));
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void multiLimitDecisionsOfHostileKeysNeverCrossSlots(Algorithm algorithm) {
		Policy policy = policy("hostile", algorithm, "1/1h", "2/1d", "3/7d");
		RateLimiter limiter = instances(policy).get(0);
		StorageKeys layout = new StorageKeys("ratelimit", policy);
		Set<Integer> masters = new HashSet<>();
		for (String client : AbstractRateLimiterBackendTests.hostileKeys()) {
			assertThat(limiter.tryAcquire(client).allowed()).isTrue();
			assertThat(limiter.tryAcquire(client).allowed()).isFalse();
			List<String> keys = layout.keys(client);
			Set<Integer> slots = new HashSet<>();
			keys.forEach((key) -> slots.add(cluster.slotOf(key)));
			assertThat(slots).as("slots of the keys of one decision").hasSize(1);
			int master = cluster.masterOf(slots.iterator().next());
			masters.add(master);
			assertThat(cluster.keysByMaster("ratelimit:" + policy.name() + ":*").get(master)).containsAll(keys);
			limiter.reset(client);
			assertThat(limiter.tryAcquire(client).allowed()).isTrue();
		}
		assertThat(masters).hasSize(3);
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void scriptsFlushedFromEveryMasterAreLoadedAgainOnEachNode(Algorithm algorithm) {
		Policy policy = policy("noscript", algorithm, "2/1h", "20/1d");
		RateLimiter limiter = instances(policy).get(0);
		List<String> clients = clientsOnEveryMaster(policy);
		clients.forEach((client) -> assertThat(limiter.tryAcquire(client).allowed()).isTrue());
		for (int port : cluster.ports()) {
			cluster.on(port, (redis) -> redis.scriptFlush());
		}
		for (String client : clients) {
			assertThat(limiter.tryAcquire(client).allowed()).isTrue();
			Decision denied = limiter.tryAcquire(client);
			assertThat(denied.allowed()).isFalse();
			assertThat(denied.remaining()).isZero();
		}
		String sha = RedisRateLimiterBackend.script(algorithm).getSha1();
		for (int port : cluster.ports()) {
			List<Boolean> loaded = cluster.on(port, (redis) -> redis.scriptExists(sha));
			assertThat(loaded).as("script loaded again on %d", port).containsExactly(true);
		}
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void slotMovedToAnotherMasterMidTrafficLosesNoPermitAndNoDecision(Algorithm algorithm) throws Exception {
		Policy policy = policy("reshard", algorithm, "100/1h", "500/1d");
		List<RateLimiter> instances = instances(policy);
		String client = "client-" + UUID.randomUUID();
		List<String> keys = new StorageKeys("ratelimit", policy).keys(client);
		int slot = cluster.slotOf(keys.get(0));
		int source = cluster.masterOf(slot);
		int target = cluster.ports().stream().filter((port) -> port != source).findFirst().orElseThrow();
		int before = 0;
		for (int i = 0; i < 40; i++) {
			before += instances.get(i % INSTANCES).tryAcquire(client).allowed() ? 1 : 0;
		}
		assertThat(before).isEqualTo(40);

		AtomicBoolean moved = new AtomicBoolean();
		ExecutorService executor = Executors.newFixedThreadPool(INSTANCES * 2);
		try {
			List<Future<Integer>> results = new ArrayList<>();
			for (int thread = 0; thread < INSTANCES * 2; thread++) {
				RateLimiter instance = instances.get(thread % INSTANCES);
				results.add(executor.submit(() -> {
					int admitted = 0;
					int afterMove = 0;
					while (afterMove < 20) {
						admitted += instance.tryAcquire(client).allowed() ? 1 : 0;
						afterMove += moved.get() ? 1 : 0;
					}
					return admitted;
				}));
			}
			try {
				cluster.moveSlot(slot, target);
			}
			finally {
				moved.set(true);
			}
			int admitted = before;
			for (Future<Integer> result : results) {
				admitted += result.get(60, TimeUnit.SECONDS);
			}
			assertThat(admitted).isEqualTo(100);
		}
		finally {
			executor.shutdownNow();
		}
		Map<Integer, List<String>> keysByMaster = cluster.keysByMaster("ratelimit:" + policy.name() + ":*");
		assertThat(keysByMaster.get(target)).containsExactlyInAnyOrderElementsOf(keys);
		assertThat(keysByMaster.get(source)).isEmpty();
		assertThat(instances.get(0).tryAcquire(client).allowed()).isFalse();
	}

	/**
	 * A new policy whose windows begin at the test, so that no window ends while it runs and no key expires with one.
	 */
	private static Policy policy(String name, Algorithm algorithm, String... limits) {
		return new Policy(name + "-" + UUID.randomUUID(), algorithm,
				RedisTime.startedWindows(new StringRedisTemplate(servers.get(0)), limits));
	}

	private static List<RateLimiter> instances(Policy policy) {
		return servers.stream()
			.map((server) -> new RedisRateLimiterBackend(server, "ratelimit", TestRedis.TIMEOUT).create(policy))
			.toList();
	}

	/** One client whose keys live on each master. */
	private static List<String> clientsOnEveryMaster(Policy policy) {
		StorageKeys layout = new StorageKeys("ratelimit", policy);
		List<String> clients = new ArrayList<>();
		Set<Integer> masters = new HashSet<>();
		for (int i = 0; masters.size() < cluster.ports().size(); i++) {
			String client = "client-" + i;
			if (masters.add(cluster.masterOf(cluster.slotOf(layout.keys(client).get(0))))) {
				clients.add(client);
			}
		}
		return clients;
	}

	/**
	 * Sends {@code INSTANCES x THREADS_PER_INSTANCE x ATTEMPTS_PER_THREAD} requests for one key, all threads released
	 * at once, and counts the admissions.
	 */
	private static int hammer(List<RateLimiter> instances, String client) throws Exception {
		return Hammer.admitted(instances.size(), THREADS_PER_INSTANCE, ATTEMPTS_PER_THREAD,
				(instance) -> instances.get(instance).tryAcquire(client).allowed());
	}

}
