package io.github.ratelimit.redis;

import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.core.Limit;
import io.github.ratelimit.core.Policy;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.test.Expiry;
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
import org.springframework.data.redis.core.script.RedisScript;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each algorithm's script driven directly on a real Redis, case by case, as Spring Cloud Gateway tests its script:
 * the reply for a new key, what a peek leaves behind, TTLs (exactly when each algorithm's state stops mattering),
 * huge capacities, limits at the exact integer bound,
 * multi-limit policies, and how scripts are sent. Arguments are built by the backend's own {@link LimitArguments}.
 */
class LuaScriptTests {

	/** One permit per 1000 days, the longest period: nothing refills while a test runs. */
	private static final Limit SLOWEST = Limit.of(1, Limit.MAX_PERIOD);

	/**
	 * 103 permits per 1000 days, a bucket of 8.9 * 10^15 ticks (just under 2^53) with capacity and period coprime, so a
	 * permit is no whole number of microseconds.
	 */
	private static final Limit SLOW_AND_COPRIME = Limit.of(103, Limit.MAX_PERIOD);

	/** Redis keeps expiries in milliseconds, rounding both when it sets them and when it reports them. */
	private static final long EXPIRY_PRECISION_MICROS = 2_000;

	@SuppressWarnings({ "unchecked", "rawtypes" })
	private static final RedisScript<List<Long>> TIME_AND_TTL = (RedisScript) RedisScript
		.of("local t = redis.call('TIME') return {t[1] + 0, t[2] + 0, redis.call('PTTL', KEYS[1])}", List.class);

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
		Limit limit = RedisTime.startedWindow(redis, "10/1m");
		String key = "script:" + UUID.randomUUID();
		long before = RedisTime.micros(redis);
		List<Long> reply = run(algorithm, key, 1, true, limit);
		long after = RedisTime.micros(redis);
		assertThat(reply).hasSize(5);
		assertThat(reply.subList(0, 3)).containsExactly(1L, 9L, 0L);
		long resetMicros = reply.get(3);
		assertThat(resetMicros).isPositive().isLessThanOrEqualTo(2 * limit.periodMicros());
		assertThat(reply.get(4)).isPositive().isLessThanOrEqualTo(resetMicros);
		assertExpiresBetween(key, Expiry.of(algorithm, limit, 1, before), Expiry.of(algorithm, limit, 1, after),
				after - before);
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void laterWritesSetTheExpiryTheAlgorithmDefines(Algorithm algorithm) throws InterruptedException {
		// a bucket's expiry moves on by what each write takes, a window's stays where its first write set it, a
		// log's is one period after its newest entry
		Limit limit = RedisTime.startedWindow(redis, "10/1m");
		String key = "script:" + UUID.randomUUID();
		long beforeFirst = RedisTime.micros(redis);
		run(algorithm, key, 3, true, limit);
		long afterFirst = RedisTime.micros(redis);
		Thread.sleep(20);
		long beforeSecond = RedisTime.micros(redis);
		List<Long> second = run(algorithm, key, 2, true, limit);
		long afterSecond = RedisTime.micros(redis);
		assertThat(second.subList(0, 3)).containsExactly(1L, 5L, 0L);
		assertExpiresBetween(key, Expiry.of(algorithm, limit, 5, beforeFirst, beforeSecond),
				Expiry.of(algorithm, limit, 5, afterFirst, afterSecond),
				Math.max(afterFirst - beforeFirst, afterSecond - beforeSecond));
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void everyLimitsKeyExpiresWhenItsOwnStateStopsMattering(Algorithm algorithm) {
		Limit[] limits = RedisTime.startedWindows(redis, "10/1m", "4/1h").toArray(Limit[]::new);
		List<String> keys = keys(2);
		long before = RedisTime.micros(redis);
		run(algorithm, keys, 3, true, limits);
		long after = RedisTime.micros(redis);
		for (int i = 0; i < limits.length; i++) {
			assertExpiresBetween(keys.get(i), Expiry.of(algorithm, limits[i], 3, before),
					Expiry.of(algorithm, limits[i], 3, after), after - before);
		}
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void keyIsStoredAsTheAlgorithmsDataType(Algorithm algorithm) {
		String key = "script:" + UUID.randomUUID();
		run(algorithm, key, 1, true, RedisTime.startedWindow(redis, "10/1m"));
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
		Limit limit = RedisTime.startedWindow(redis, "2/1m");
		String key = "script:" + UUID.randomUUID();
		run(algorithm, key, 2, true, limit);
		String before = dump(key);
		List<Long> reply = run(algorithm, key, 1, true, limit);
		assertThat(reply.get(0)).isZero();
		assertThat(reply.get(1)).isZero();
		// a sliding window may wait into the next window for the weight of this one to fall
		assertThat(reply.get(2)).isPositive().isLessThanOrEqualTo(2 * limit.periodMicros());
		assertThat(dump(key)).isEqualTo(before);
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void hugeCapacitiesAreCountedExactly(Algorithm algorithm) {
		List<String> limits = switch (algorithm) {
			case SLIDING_LOG -> List.of("500/1d", "500/1ms", "499/1s");
			case SLIDING_WINDOW -> List.of("100000/1d", "4000000000000/1ms", "999999937/1s");
			default -> List.of("1000000/1d", "4000000000000/1ms", "999999937/1s");
		};
		for (String text : limits) {
			Limit limit = Limit.parse(text);
			String key = "script:" + UUID.randomUUID();
			List<Long> reply = run(algorithm, key, 3, true, limit);
			assertThat(reply.subList(0, 3)).as(text).containsExactly(1L, limit.capacity() - 3, 0L);
		}
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void limitsAtTheExactIntegerBoundAreCountedExactly(Algorithm algorithm) {
		// capacity * period / gcd(capacity, period) is 2^53 or just under it, the most that Limit accepts, or, for the
		// algorithms Policy bounds further, their bound
		List<Limit> limits = switch (algorithm) {
			case SLIDING_LOG -> List.of(Limit.parse("500/1ms"), Limit.parse("500/1000d"), SLOWEST, SLOW_AND_COPRIME);
			case SLIDING_WINDOW -> List.of(Limit.parse("9007199254740/1ms"), Limit.parse("104249/1d"), SLOWEST,
					SLOW_AND_COPRIME);
			default -> List.of(Limit.of(1L << 53, Duration.ofNanos(1_024_000)), Limit.parse("9007199254739/1ms"),
					SLOWEST, SLOW_AND_COPRIME);
		};
		for (Limit limit : limits) {
			String key = "script:" + UUID.randomUUID();
			long permits = Math.min(3, limit.capacity());
			List<Long> reply = run(algorithm, key, permits, true, limit);
			assertThat(reply.subList(0, 3)).as(limit.toString()).containsExactly(1L, limit.capacity() - permits, 0L);
			assertThat(reply.get(3)).as(limit.toString()).isPositive().isLessThanOrEqualTo(2 * limit.periodMicros());
		}
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void slowLimitsAtTheExactIntegerBoundRefuseOnePermitTooMany(Algorithm algorithm) {
		for (Limit limit : List.of(SLOWEST, SLOW_AND_COPRIME)) {
			String key = "script:" + UUID.randomUUID();
			long capacity = limit.capacity();
			long beforeFirst = RedisTime.micros(redis);
			List<Long> first = run(algorithm, key, 1, true, limit);
			long afterFirst = RedisTime.micros(redis);
			assertThat(first.subList(0, 2)).as(limit.toString()).containsExactly(1L, capacity - 1);
			assertExpiresBetween(key, Expiry.of(algorithm, limit, 1, beforeFirst),
					Expiry.of(algorithm, limit, 1, afterFirst), afterFirst - beforeFirst);
			String before = dump(key);
			List<Long> denied = run(algorithm, key, capacity, true, limit);
			assertThat(denied.subList(0, 2)).as(limit.toString()).containsExactly(0L, capacity - 1);
			assertThat(denied.get(2)).as(limit.toString()).isPositive().isLessThanOrEqualTo(2 * limit.periodMicros());
			assertThat(dump(key)).as(limit.toString()).isEqualTo(before);
			if (capacity > 1) {
				assertThat(run(algorithm, key, capacity - 1, true, limit).subList(0, 3)).as(limit.toString())
					.containsExactly(1L, 0L, 0L);
			}
			assertThat(run(algorithm, key, 1, false, limit).subList(0, 2)).as(limit.toString())
				.containsExactly(0L, 0L);
		}
	}

	@ParameterizedTest
	@EnumSource(mode = EnumSource.Mode.EXCLUDE, names = { "SLIDING_LOG", "SLIDING_WINDOW" })
	void permitsBeyondTheExactIntegersNeverFitACapacityOfTwoToThe53(Algorithm algorithm) {
		// 2^53 + 1 is no double: sent as such it would be read as 2^53, which fits (the limiter itself never sends a
		// cost above a capacity; this is for tools that call the scripts; sliding windows and logs accept no such limit)
		Limit limit = Limit.of(1L << 53, Duration.ofNanos(1_024_000));
		String key = "script:" + UUID.randomUUID();
		for (long permits : new long[] { (1L << 53) + 1, Long.MAX_VALUE }) {
			List<Long> reply = run(algorithm, key, permits, true, limit);
			assertThat(reply.subList(0, 2)).containsExactly(0L, 1L << 53);
			assertThat(redis.hasKey(key)).isFalse();
		}
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void stateWrittenByAClockAheadOfRedisAdmitsNothingMore(Algorithm algorithm) {
		// as after a failover to a replica whose clock is behind the old primary's
		Policy policy = Policy.of("script", algorithm, "3/1m");
		List<String> keys = keys(1);
		long ahead = RedisTime.micros(redis) + 3_600_000_000L;
		assertThat(SuppliedClockScripts.run(redis, policy, keys, 3, true, ahead).get(0).allowed()).isTrue();
		List<Long> refused = run(algorithm, keys, 1, true, policy.limits().toArray(Limit[]::new));
		assertThat(refused.subList(0, 2)).containsExactly(0L, 0L);
		// the wait counts from Redis' own clock, so it spans the hour the state is ahead of it
		assertThat(refused.get(2)).isGreaterThan(3_600_000_000L);
		assertThat(refused.get(4)).isGreaterThan(3_600_000_000L);
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void multiLimitPoliciesTakeFromEveryLimitOrNone(Algorithm algorithm) {
		Limit[] limits = RedisTime.startedWindows(redis, "10/1m", "3/1h", "5/1d").toArray(Limit[]::new);
		List<String> keys = keys(3);
		for (long used = 1; used <= 3; used++) {
			List<Long> reply = run(algorithm, keys, 1, true, limits);
			assertThat(reply).hasSize(15);
			assertThat(reply.subList(0, 3)).containsExactly(1L, 10 - used, 0L);
			assertThat(reply.subList(5, 8)).containsExactly(1L, 3 - used, 0L);
			assertThat(reply.subList(10, 13)).containsExactly(1L, 5 - used, 0L);
		}
		List<String> before = keys.stream().map(LuaScriptTests::dump).toList();
		// the middle limit refuses; the others would admit, yet none of them is charged
		List<Long> denied = run(algorithm, keys, 1, true, limits);
		assertThat(List.of(denied.get(0), denied.get(5), denied.get(10))).containsExactly(1L, 0L, 1L);
		assertThat(denied.get(7)).isPositive();
		assertThat(keys.stream().map(LuaScriptTests::dump).toList()).isEqualTo(before);
		List<Long> peek = run(algorithm, keys, 1, false, limits);
		assertThat(List.of(peek.get(1), peek.get(6), peek.get(11))).containsExactly(7L, 0L, 2L);
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void multiLimitPoliciesChargeNothingForACostTheFirstLimitRefuses(Algorithm algorithm) {
		Limit[] limits = RedisTime.startedWindows(redis, "3/1m", "10/1h").toArray(Limit[]::new);
		List<String> keys = keys(2);
		List<Long> first = run(algorithm, keys, 2, true, limits);
		assertThat(List.of(first.get(0), first.get(1), first.get(5), first.get(6))).containsExactly(1L, 1L, 1L, 8L);
		List<String> before = keys.stream().map(LuaScriptTests::dump).toList();
		List<Long> denied = run(algorithm, keys, 2, true, limits);
		assertThat(List.of(denied.get(0), denied.get(1), denied.get(5))).containsExactly(0L, 1L, 1L);
		assertThat(keys.stream().map(LuaScriptTests::dump).toList()).isEqualTo(before);
		List<Long> last = run(algorithm, keys, 1, true, limits);
		assertThat(List.of(last.get(0), last.get(1), last.get(5), last.get(6))).containsExactly(1L, 0L, 1L, 7L);
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
	void costAboveTheSmallestCapacityIsRefusedWithOneReadThatWritesNothing(Algorithm algorithm) throws Exception {
		String name = "unsatisfiable-" + UUID.randomUUID();
		RateLimiter limiter = new RedisRateLimiterBackend(connectionFactory, "ratelimit", TestRedis.TIMEOUT)
			.create(Policy.of(name, algorithm, "10/1m", "100/1h"));
		limiter.tryAcquire("warm-up");
		redis.execute((RedisCallback<Void>) (connection) -> {
			connection.serverCommands().resetConfigStats();
			return null;
		});
		assertThat(limiter.tryAcquire("client", 11).satisfiable()).isFalse();
		assertThat(limiter.tryAcquire("client", Long.MAX_VALUE).satisfiable()).isFalse();
		assertThat(limiter.tryAcquireAsync("client", 101).toCompletableFuture().get(10, TimeUnit.SECONDS).violated())
			.containsExactlyElementsOf(limiter.policy().limits());
		// each read the client's state without consuming (to report it), with one permit, never the cost
		assertThat(calls("evalsha") + calls("eval")).isEqualTo(3);
		assertThat(redis.keys("ratelimit:" + name + ":*{client}*")).isEmpty();
		assertThat(redis.keys("ratelimit:" + name + ":*{warm-up}*")).isNotEmpty();
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void everyScriptReadsRedisTime(Algorithm algorithm) {
		assertThat(RedisRateLimiterBackend.script(algorithm).getScriptAsString())
			.contains("redis.call('TIME')")
			.doesNotContain("HMSET");
	}

	/**
	 * Asserts that a key expires within {@code [earliest, latest]} (Redis time, microseconds), give or take the
	 * milliseconds in which Redis keeps expiries (its TTL and Redis' clock are read in one script, so no time passes
	 * between them) and, at the late end, the time the script that set it ran: Redis 6.2 stamps an expiry with the
	 * clock of its {@code PEXPIRE} command, which runs up to that long after the script read the clock it computed
	 * the expiry from (Redis 7 keeps one time for a whole script). A fixed window's key, whose expiry is its window's
	 * end whenever it is written, showed it on a loaded machine: 2.8 ms late for a 2 ms precision.
	 * @param scriptMicros how long the call that set the expiry took at most, as the test measured it
	 */
	private static void assertExpiresBetween(String key, long earliest, long latest, long scriptMicros) {
		List<Long> timeAndTtl = redis.execute(TIME_AND_TTL, List.of(key));
		assertThat(timeAndTtl.get(2)).as("TTL of %s", key).isPositive();
		long expiry = timeAndTtl.get(0) * 1_000_000 + timeAndTtl.get(1) + timeAndTtl.get(2) * 1000;
		assertThat(expiry).as("expiry of %s, %d ms after Redis' time", key, timeAndTtl.get(2))
			.isBetween(earliest - EXPIRY_PRECISION_MICROS, latest + scriptMicros + EXPIRY_PRECISION_MICROS);
	}

	private static List<Long> run(Algorithm algorithm, String key, long permits, boolean consume, Limit limit) {
		return run(algorithm, List.of(key), permits, consume, limit);
	}

	private static List<Long> run(Algorithm algorithm, List<String> keys, long permits, boolean consume,
			Limit... limits) {
		Policy policy = new Policy("script", algorithm, List.of(limits));
		return redis.execute(RedisRateLimiterBackend.script(algorithm), keys,
				RedisRateLimiterBackend.scriptArguments(policy, permits, consume).toArray());
	}

	private static List<String> keys(int limits) {
		String client = "script:{" + UUID.randomUUID() + "}:";
		return IntStream.range(0, limits).mapToObj((limit) -> client + limit).toList();
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
