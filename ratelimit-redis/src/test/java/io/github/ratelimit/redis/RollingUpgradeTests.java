package io.github.ratelimit.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.core.Limit;
import io.github.ratelimit.core.Policy;
import io.github.ratelimit.test.StartedWindow;
import io.github.ratelimit.test.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * While a rolling upgrade runs, instances of two versions decide on the same keys. The scripts of the previous
 * version ({@code previous/*.lua}, which took each limit's capacity and period and computed everything else per call)
 * and the current ones must read each other's state as their own.
 */
class RollingUpgradeTests {

	/**
	 * Seven permits per hour: no whole number of ticks refills per microsecond, so state carries fractions. Windows
	 * begin at the test, so that none ends while it runs.
	 */
	private static final String LIMIT = "7/1h";

	private static LettuceConnectionFactory connectionFactory;

	private static StringRedisTemplate redis;

	@BeforeAll
	static void connect() {
		connectionFactory = TestRedis.get().newConnectionFactory();
		redis = new StringRedisTemplate(connectionFactory);
	}

	@AfterAll
	static void disconnect() {
		connectionFactory.destroy();
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void previousAndCurrentScriptsShareTheirState(Algorithm algorithm) {
		Policy policy = new Policy("upgrade", algorithm,
				List.of(StartedWindow.begunAt(RedisTime.micros(redis), algorithm, LIMIT)));
		String key = "upgrade:" + UUID.randomUUID();
		assertThat(previous(policy, key, 2, true).subList(0, 3)).containsExactly(1L, 5L, 0L);
		assertThat(current(policy, key, 3, true).subList(0, 3)).containsExactly(1L, 2L, 0L);
		assertThat(previous(policy, key, 1, true).subList(0, 3)).containsExactly(1L, 1L, 0L);
		assertThat(current(policy, key, 1, false).subList(0, 3)).containsExactly(1L, 1L, 0L);
		assertThat(current(policy, key, 2, true).subList(0, 2)).containsExactly(0L, 1L);
		assertThat(previous(policy, key, 2, true).subList(0, 2)).containsExactly(0L, 1L);
		assertThat(current(policy, key, 1, true).subList(0, 3)).containsExactly(1L, 0L, 0L);
		assertThat(previous(policy, key, 1, false).subList(0, 2)).containsExactly(0L, 0L);
		assertThat(redis.getExpire(key, TimeUnit.MILLISECONDS)).isPositive()
			.isLessThanOrEqualTo(2 * policy.limits().get(0).period().toMillis());
	}

	private static List<Long> current(Policy policy, String key, long permits, boolean consume) {
		return redis.execute(RedisRateLimiterBackend.script(policy.algorithm()), List.of(key),
				RedisRateLimiterBackend.scriptArguments(policy, permits, consume).toArray());
	}

	private static List<Long> previous(Policy policy, String key, long permits, boolean consume) {
		Limit limit = policy.limits().get(0);
		return redis.execute(previousScript(policy.algorithm()), List.of(key), Long.toString(permits),
				consume ? "1" : "0", Long.toString(limit.capacity()), Long.toString(limit.periodMicros()));
	}

	@SuppressWarnings({ "unchecked", "rawtypes" })
	private static RedisScript<List<Long>> previousScript(Algorithm algorithm) {
		return (RedisScript) RedisScript.of(read("common.lua") + "\n" + read(algorithm.id() + ".lua"), List.class);
	}

	private static String read(String name) {
		try (InputStream in = RollingUpgradeTests.class.getResourceAsStream("previous/" + name)) {
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
