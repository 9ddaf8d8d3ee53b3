package io.github.ratelimit.redis;

import java.util.ArrayList;
import java.util.List;

import io.github.ratelimit.test.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The leasing proofs on a standalone Redis.
 */
class LeasedProofTests extends AbstractLeasedProofTests {

	private static final List<LettuceConnectionFactory> servers = new ArrayList<>();

	@BeforeAll
	static void startServers() {
		for (int i = 0; i < INSTANCES; i++) {
			servers.add(TestRedis.get().newConnectionFactory());
		}
	}

	@AfterAll
	static void stopServers() {
		servers.forEach(LettuceConnectionFactory::destroy);
	}

	@Override
	List<LettuceConnectionFactory> servers() {
		return servers;
	}

	@Override
	String topology() {
		return "standalone";
	}

}
