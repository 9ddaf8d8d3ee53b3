package io.github.ratelimit.redis;

import io.github.ratelimit.test.EmbeddedRedisCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * {@link RedisClientOverrides} on a real 3-master Redis Cluster: the same behaviour as on a standalone Redis.
 */
class RedisClusterClientOverridesTests extends AbstractRedisClientOverridesTests {

	private static EmbeddedRedisCluster cluster;

	private static LettuceConnectionFactory connectionFactory;

	@BeforeAll
	static void startCluster() {
		cluster = EmbeddedRedisCluster.shared();
		connectionFactory = cluster.newConnectionFactory();
	}

	@AfterAll
	static void stopCluster() {
		if (connectionFactory != null) {
			connectionFactory.destroy();
		}
	}

	@Override
	protected RedisConnectionFactory connectionFactory() {
		return connectionFactory;
	}

}
