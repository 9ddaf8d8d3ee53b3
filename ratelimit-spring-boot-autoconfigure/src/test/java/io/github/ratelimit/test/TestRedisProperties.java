package io.github.ratelimit.test;

import java.util.UUID;

import org.springframework.test.context.DynamicPropertyRegistry;

/**
 * The properties that point an application at {@link TestRedis} under a key prefix of its own, so that test classes
 * sharing the server never see each other's state.
 */
public final class TestRedisProperties {

	private TestRedisProperties() {
	}

	/**
	 * The properties, for {@code withPropertyValues(..)} of a context runner.
	 * @return {@code spring.data.redis.host}, {@code spring.data.redis.port}, a fresh {@code ratelimit.key-prefix}
	 * and the generous {@code ratelimit.timeout} of tests that are not about timeouts
	 */
	public static String[] values() {
		TestRedis redis = TestRedis.get();
		return new String[] { "spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port(),
				"ratelimit.key-prefix=" + uniquePrefix(), "ratelimit.timeout=" + TestRedis.TIMEOUT.toMillis() + "ms" };
	}

	/**
	 * Registers the properties, for a {@code @DynamicPropertySource} method.
	 * @param registry the registry
	 */
	public static void register(DynamicPropertyRegistry registry) {
		TestRedis redis = TestRedis.get();
		registry.add("spring.data.redis.host", redis::host);
		registry.add("spring.data.redis.port", redis::port);
		String prefix = uniquePrefix();
		registry.add("ratelimit.key-prefix", () -> prefix);
		registry.add("ratelimit.timeout", () -> TestRedis.TIMEOUT.toMillis() + "ms");
	}

	/**
	 * A key prefix no other test uses.
	 * @return the prefix
	 */
	public static String uniquePrefix() {
		return "test-" + UUID.randomUUID();
	}

}
