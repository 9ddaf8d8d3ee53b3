package io.github.ratelimit.redis;

import java.util.ArrayList;
import java.util.List;

import io.github.ratelimit.test.EmbeddedRedisCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The leasing proofs on a real 3-master Redis Cluster, each instance with its own cluster connection factory.
 */
class LeasedClusterProofTests extends AbstractLeasedProofTests {

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

	@Override
	List<LettuceConnectionFactory> servers() {
		return servers;
	}

	@Override
	String topology() {
		return "cluster";
	}

}
