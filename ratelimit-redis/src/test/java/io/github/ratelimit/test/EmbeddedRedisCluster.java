package io.github.ratelimit.test;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import io.lettuce.core.MigrateArgs;
import io.lettuce.core.Range;
import redis.embedded.RedisServer;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A real Redis Cluster of embedded Redis server processes on free local ports ({@link ClusterPorts}: each at most
 * 55535, with its cluster bus port free too): each master started with
 * {@code cluster-enabled yes}, given an equal range of the 16384 slots with CLUSTER ADDSLOTS, introduced to the
 * others with CLUSTER MEET, and ready once CLUSTER INFO says {@code cluster_state:ok} on every node. No replicas: the
 * cluster is for spreading keys and load, not for failover (see {@link EmbeddedRedisSentinel}).
 * <p>
 * Formed with Lettuce rather than the embedded-redis library's {@code RedisShardedCluster}: that one does start with
 * the Jedis 7 Spring Boot manages, but, tried here, it put its masters on 6379-6381 although given other
 * {@code serverPorts(..)}, and it leaves node tables and dump files beside the server binary it shares with every
 * other embedded server of the JVM. {@link #close()} stops every process and deletes the cluster's files.
 */
public final class EmbeddedRedisCluster extends RedisProcesses {

	/** The slots of a Redis Cluster. */
	public static final int SLOTS = 16384;

	private final List<Integer> ports = new ArrayList<>();

	private final Map<Integer, Range<Integer>> slotsByPort = new LinkedHashMap<>();

	private final Map<Integer, Integer> movedSlots = new ConcurrentHashMap<>();

	private static volatile EmbeddedRedisCluster shared;

	private EmbeddedRedisCluster() {
		super("redis-cluster");
	}

	/**
	 * The cluster of three masters that every test of this JVM shares, as {@link TestRedis} is shared: started on
	 * first use and stopped when the JVM exits. Its users keep apart by keys of their own (a prefix or a policy name
	 * of their own); one may move a slot ({@link #masterOf} follows it), but none may stop a node or close it.
	 * @return the running cluster
	 */
	public static EmbeddedRedisCluster shared() {
		EmbeddedRedisCluster cluster = shared;
		if (cluster == null) {
			synchronized (EmbeddedRedisCluster.class) {
				cluster = shared;
				if (cluster == null) {
					cluster = start(3);
					Runtime.getRuntime().addShutdownHook(new Thread(cluster::close, "test-redis-cluster-shutdown"));
					shared = cluster;
				}
			}
		}
		return cluster;
	}

	/**
	 * Starts a cluster and waits until every node says it is ready.
	 * @param masters the number of masters, each with an equal share of the slots
	 * @return the running cluster; close it to stop every process
	 */
	public static EmbeddedRedisCluster start(int masters) {
		EmbeddedRedisCluster cluster = new EmbeddedRedisCluster();
		try {
			cluster.startNodes(masters);
			cluster.formCluster();
			return cluster;
		}
		catch (RuntimeException ex) {
			cluster.close();
			throw ex;
		}
	}

	private void startNodes(int masters) {
		for (int i = 0; i < masters; i++) {
			int port = ClusterPorts.freePort();
			try {
				start(RedisServer.newRedisServer()
					.port(port)
					.bind("127.0.0.1")
					.setting("cluster-enabled yes")
					.setting("dir " + directory())
					.setting("cluster-config-file nodes-" + port + ".conf")
					.setting("cluster-node-timeout 5000")
					.setting("save \"\"")
					.setting("appendonly no")
					.onShutdownForceStop(true)
					.build());
			}
			catch (IOException ex) {
				throw new IllegalStateException("Could not configure a cluster node on port " + port, ex);
			}
			this.ports.add(port);
			int first = SLOTS * i / masters;
			int last = SLOTS * (i + 1) / masters - 1;
			this.slotsByPort.put(port, Range.create(first, last));
		}
	}

	private void formCluster() {
		int epoch = 1;
		for (int port : this.ports) {
			long configEpoch = epoch++;
			on(port, (redis) -> {
				redis.clusterSetConfigEpoch(configEpoch);
				return redis.clusterAddSlots(slots(this.slotsByPort.get(port)));
			});
		}
		int first = this.ports.get(0);
		for (int port : this.ports.subList(1, this.ports.size())) {
			on(first, (redis) -> redis.clusterMeet("127.0.0.1", port));
		}
		await("every node of the cluster on " + this.ports + " says cluster_state:ok", () -> this.ports.stream()
			.allMatch((port) -> on(port, (redis) -> clusterInfo(redis.clusterInfo()))));
	}

	private static int[] slots(Range<Integer> range) {
		return IntStream.rangeClosed(range.getLower().getValue(), range.getUpper().getValue()).toArray();
	}

	private boolean clusterInfo(String info) {
		return info.contains("cluster_state:ok") && info.contains("cluster_known_nodes:" + this.ports.size())
				&& info.contains("cluster_slots_assigned:" + SLOTS);
	}

	/**
	 * The masters' ports, in the order of their slot ranges.
	 * @return the ports
	 */
	public List<Integer> ports() {
		return List.copyOf(this.ports);
	}

	/**
	 * The nodes as {@code spring.data.redis.cluster.nodes} takes them.
	 * @return {@code 127.0.0.1:<port>,...}
	 */
	public String nodes() {
		return this.ports.stream().map((port) -> "127.0.0.1:" + port).collect(Collectors.joining(","));
	}

	/**
	 * The cluster as Spring Data Redis configures it.
	 * @return the configuration, listing every master
	 */
	public RedisClusterConfiguration configuration() {
		return new RedisClusterConfiguration(List.of(nodes().split(",")));
	}

	/**
	 * A new, started cluster connection factory of its own, as one application instance would have. The caller
	 * destroys it.
	 * @return the connection factory
	 */
	public LettuceConnectionFactory newConnectionFactory() {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(configuration());
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	/**
	 * The slot of a key as the cluster computes it (CLUSTER KEYSLOT).
	 * @param key the key
	 * @return its slot
	 */
	public int slotOf(String key) {
		return on(this.ports.get(0), (redis) -> redis.clusterKeyslot(key)).intValue();
	}

	/**
	 * The keys stored on each master that match a pattern, asking each node for its own keys only.
	 * @param pattern a KEYS pattern
	 * @return the keys by master port, every master present
	 */
	public Map<Integer, List<String>> keysByMaster(String pattern) {
		Map<Integer, List<String>> keys = new LinkedHashMap<>();
		for (int port : this.ports) {
			keys.put(port, on(port, (redis) -> redis.keys(pattern)));
		}
		return keys;
	}

	/**
	 * The master that serves a slot: the one whose range holds it, unless {@link #moveSlot} moved it.
	 * @param slot the slot
	 * @return the master's port
	 */
	public int masterOf(int slot) {
		Integer moved = this.movedSlots.get(slot);
		if (moved != null) {
			return moved;
		}
		return this.slotsByPort.entrySet()
			.stream()
			.filter((entry) -> entry.getValue().getLower().getValue() <= slot
					&& slot <= entry.getValue().getUpper().getValue())
			.map(Map.Entry::getKey)
			.findFirst()
			.orElseThrow();
	}

	/**
	 * Moves one slot and its keys from its master to another, the way {@code redis-cli --cluster reshard} does:
	 * the target imports, the source migrates, the keys go over with MIGRATE, then both nodes assign the slot to the
	 * target. While it runs, the source answers ASK for keys it no longer holds, and afterwards MOVED.
	 * @param slot the slot
	 * @param targetPort the master to move it to
	 */
	public void moveSlot(int slot, int targetPort) {
		int sourcePort = masterOf(slot);
		if (sourcePort == targetPort) {
			return;
		}
		String sourceId = on(sourcePort, (redis) -> redis.clusterMyId());
		String targetId = on(targetPort, (redis) -> redis.clusterMyId());
		on(targetPort, (redis) -> redis.clusterSetSlotImporting(slot, sourceId));
		on(sourcePort, (redis) -> redis.clusterSetSlotMigrating(slot, targetId));
		on(sourcePort, (redis) -> {
			List<String> keys = redis.clusterGetKeysInSlot(slot, 1000);
			while (!keys.isEmpty()) {
				redis.migrate("127.0.0.1", targetPort, 0, 10_000, MigrateArgs.Builder.keys(keys));
				keys = redis.clusterGetKeysInSlot(slot, 1000);
			}
			return null;
		});
		// the target first: a source that hands the slot over while the target still imports it would bounce
		// clients between them with MOVED
		List<Integer> order = new ArrayList<>(List.of(targetPort, sourcePort));
		this.ports.stream().filter((port) -> !order.contains(port)).forEach(order::add);
		for (int port : order) {
			on(port, (redis) -> redis.clusterSetSlotNode(slot, targetId));
		}
		this.movedSlots.put(slot, targetPort);
	}

}
