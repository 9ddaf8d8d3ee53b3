package io.github.ratelimit.redis;

import java.util.List;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.core.Limit;
import io.github.ratelimit.core.Policy;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.test.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.data.redis.connection.DataType;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each algorithm's script driven directly on a real Redis, case by case, as Spring Cloud Gateway tests its script:
 * the reply for a new key, what a peek leaves behind, TTLs, huge capacities, and how scripts are sent.
 */
class LuaScriptTests {

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
	void newKeyIsAdmittedAndWrittenWithATtl(Algorithm algorithm) {
		String key = "script:" + UUID.randomUUID();
		List<Long> reply = run(algorithm, key, 1, true, Limit.parse("10/1m"));
		assertThat(reply).hasSize(4);
		assertThat(reply.subList(0, 3)).containsExactly(1L, 9L, 0L);
		long resetMicros = reply.get(3);
		assertThat(resetMicros).isPositive().isLessThanOrEqualTo(120_000_000L);
		long ttl = redis.getExpire(key, TimeUnit.MILLISECONDS);
		assertThat(ttl).isPositive().isLessThanOrEqualTo((resetMicros + 999) / 1000);
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void keyIsStoredAsTheAlgorithmsDataType(Algorithm algorithm) {
		String key = "script:" + UUID.randomUUID();
		run(algorithm, key, 1, true, Limit.parse("10/1m"));
		DataType expected = switch (algorithm) {
			case TOKEN_BUCKET, SLIDING_WINDOW -> DataType.HASH;
			case GCRA, FIXED_WINDOW -> DataType.STRING;
			case SLIDING_LOG -> DataType.ZSET;
		};
		assertThat(redis.type(key)).isEqualTo(expected);
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void peekWritesNothing(Algorithm algorithm) {
		String key = "script:" + UUID.randomUUID();
		List<Long> reply = run(algorithm, key, 1, false, Limit.parse("10/1m"));
		assertThat(reply.subList(0, 3)).containsExactly(1L, 10L, 0L);
		assertThat(redis.hasKey(key)).isFalse();
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void deniedRequestWritesNothing(Algorithm algorithm) {
		String key = "script:" + UUID.randomUUID();
		run(algorithm, key, 2, true, Limit.parse("2/1m"));
		String before = dump(key);
		List<Long> reply = run(algorithm, key, 1, true, Limit.parse("2/1m"));
		assertThat(reply.get(0)).isZero();
		assertThat(reply.get(1)).isZero();
		// a sliding window may wait into the next window for the weight of this one to fall
		assertThat(reply.get(2)).isPositive().isLessThanOrEqualTo(120_000_000L);
		assertThat(dump(key)).isEqualTo(before);
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void hugeCapacitiesAreCountedExactly(Algorithm algorithm) {
		for (String text : List.of("1000000/1d", "4000000000000/1ms", "999999937/1s")) {
			Limit limit = Limit.parse(text);
			String key = "script:" + UUID.randomUUID();
			List<Long> reply = run(algorithm, key, 3, true, limit);
			assertThat(reply.subList(0, 3)).as(text).containsExactly(1L, limit.capacity() - 3, 0L);
		}
	}

	@Test
	void limitsTooFineForExactIntegersAreRefused() {
		org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
			.isThrownBy(() -> Limit.parse("999999937/1d"))
			.withMessageContaining("cannot be decided exactly");
	}

	@Test
	void decisionsUseEvalshaAndSurviveAScriptFlush() {
		RateLimiter limiter = new RedisRateLimiterBackend(connectionFactory, "ratelimit", TestRedis.TIMEOUT)
			.create(Policy.of("flush-" + UUID.randomUUID(), Algorithm.TOKEN_BUCKET, "100/1m"));
		limiter.tryAcquire("warm-up");
		redis.execute((RedisCallback<Void>) (connection) -> {
			connection.serverCommands().resetConfigStats();
			return null;
		});
		for (int i = 0; i < 10; i++) {
			assertThat(limiter.tryAcquire("client").allowed()).isTrue();
		}
		assertThat(calls("evalsha")).isEqualTo(10);
		assertThat(calls("eval")).isZero();
		redis.execute((RedisCallback<Void>) (connection) -> {
			connection.scriptingCommands().scriptFlush();
			return null;
		});
		for (int i = 0; i < 10; i++) {
			assertThat(limiter.tryAcquire("client").allowed()).isTrue();
		}
		assertThat(limiter.peek("client").remaining()).isEqualTo(80);
		// one EVALSHA refused with NOSCRIPT, one EVAL that loads the script again, then EVALSHA again
		assertThat(calls("evalsha")).isEqualTo(21);
		assertThat(calls("eval")).isEqualTo(1);
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void everyScriptReadsRedisTime(Algorithm algorithm) {
		assertThat(RedisRateLimiterBackend.script(algorithm).getScriptAsString())
			.contains("redis.call('TIME')")
			.doesNotContain("HMSET");
	}

	private static List<Long> run(Algorithm algorithm, String key, long permits, boolean consume, Limit limit) {
		return redis.execute(RedisRateLimiterBackend.script(algorithm), List.of(key), Long.toString(permits),
				consume ? "1" : "0", Long.toString(limit.capacity()), Long.toString(limit.periodMicros()));
	}

	private static String dump(String key) {
		byte[] dump = redis.execute((RedisCallback<byte[]>) (connection) -> connection.keyCommands()
			.dump(key.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
		return java.util.HexFormat.of().formatHex(dump);
	}

	private static long calls(String command) {
		Properties stats = redis
			.execute((RedisCallback<Properties>) (RedisConnection connection) -> connection.serverCommands()
				.info("commandstats"));
		String line = stats.getProperty("cmdstat_" + command);
		if (line == null) {
			return 0;
		}
		return Long.parseLong(line.replaceAll("^calls=(\\d+),.*$", "$1"));
	}

}
