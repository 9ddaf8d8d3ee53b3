package io.github.ratelimit.test;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The test topologies themselves: a cluster whose masters together serve every slot, a sentinel setup that really
 * fails over, and nothing left listening once they are closed.
 */
class EmbeddedTopologiesTests {

	@Test
	void clusterOfThreeMastersWithTheirBusPortsServesEverySlotAndStopsEveryProcessOnClose() {
		List<Integer> ports;
		try (EmbeddedRedisCluster cluster = EmbeddedRedisCluster.start(3)) {
			ports = cluster.ports();
			assertThat(ports).hasSize(3).allMatch(TestRedis::listening);
			assertThat(ports).as("cluster bus ports, 10000 above each node's")
				.allMatch((port) -> port <= ClusterPorts.HIGHEST && TestRedis.listening(ClusterPorts.busPort(port)));
			for (int port : ports) {
				String info = cluster.on(port, (redis) -> redis.clusterInfo());
				assertThat(info).contains("cluster_state:ok", "cluster_slots_assigned:16384", "cluster_known_nodes:3",
						"cluster_size:3");
			}
			assertThat(cluster.slotOf("{client}:a")).isEqualTo(cluster.slotOf("other:{client}:b"));
			assertThat(List.of(0, 5460, 5461, 10922, 10923, 16383).stream().map(cluster::masterOf).distinct())
				.containsExactlyElementsOf(ports);
		}
		assertThat(ports).noneMatch(TestRedis::listening);
	}

	@Test
	void sentinelsPromoteTheReplicaWhenTheMasterIsKilledAndCloseStopsEveryProcess() {
		List<Integer> ports = new ArrayList<>();
		try (EmbeddedRedisSentinel sentinel = EmbeddedRedisSentinel.start()) {
			int master = sentinel.masterPort();
			int replica = sentinel.replicaPort();
			ports.addAll(List.of(master, replica));
			ports.addAll(List.of(sentinel.sentinelNodes().replace("127.0.0.1:", "").split(",")).stream()
				.map(Integer::valueOf)
				.toList());
			assertThat(ports).hasSize(5).allMatch(TestRedis::listening);
			sentinel.on(master, (redis) -> redis.set("before-failover", "1"));

			assertThat(sentinel.killMaster()).isEqualTo(master);
			assertThat(TestRedis.listening(master)).isFalse();
			assertThat(sentinel.awaitFailover(master)).isEqualTo(replica);
			assertThat(sentinel.masterPort()).isEqualTo(replica);
			String written = sentinel.on(replica, (redis) -> redis.set("after-failover", "1"));
			assertThat(written).isEqualTo("OK");
		}
		assertThat(ports).noneMatch(TestRedis::listening);
	}

}
