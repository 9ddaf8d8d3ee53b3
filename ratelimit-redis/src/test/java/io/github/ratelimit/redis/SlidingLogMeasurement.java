package io.github.ratelimit.redis;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.core.Policy;
import io.github.ratelimit.test.TestRedis;
import io.github.ratelimit.test.TestRedis.EmbeddedRedis;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.resps.Slowlog;

/**
 * The measurement behind {@link Policy#MAX_SLIDING_LOG_CAPACITY}, run by hand (not a test: no test asserts a speed).
 * On an embedded Redis server of its own, for each capacity, the worst decision of {@code sliding-log.lua}: a log
 * full of permits that have all just expired, and a request for the whole capacity, so the script removes a full
 * log and writes a full one. Time moves by one period per decision ({@link SuppliedClockScripts}, built past
 * Policy's bound); Redis' own time per call is read from SLOWLOG (every command logged): median and maximum.
 * <p>
 * Run with {@code java -cp <test classpath> io.github.ratelimit.redis.SlidingLogMeasurement [runs per capacity]}.
 */
public final class SlidingLogMeasurement {

	private static final long[] CAPACITIES = { 100, 250, 500, 1000, 2000, 5000, 10000, 100000 };

	private static final long PERIOD = 1_000_000;

	private SlidingLogMeasurement() {
	}

	public static void main(String[] args) {
		int runs = (args.length > 0) ? Integer.parseInt(args[0]) : 50;
		EmbeddedRedis server = EmbeddedRedis.start(TestRedis.freePort());
		try (Jedis redis = new Jedis("localhost", server.port())) {
			String sha = redis.scriptLoad(SuppliedClockScripts.of(Algorithm.SLIDING_LOG).getScriptAsString());
			redis.configSet("slowlog-log-slower-than", "0");
			redis.configSet("slowlog-max-len", "10000");
			System.out.println("| capacity (= cost) | median | max |");
			System.out.println("|---|---|---|");
			for (long capacity : CAPACITIES) {
				List<Long> micros = measure(redis, sha, capacity, runs);
				System.out.printf("| %,d | %,d µs | %,d µs |%n", capacity, micros.get(micros.size() / 2),
						micros.get(micros.size() - 1));
			}
		}
		finally {
			server.stop();
		}
	}

	private static List<Long> measure(Jedis redis, String sha, long capacity, int runs) {
		String key = "measure:{" + capacity + "}:0";
		List<String> time = redis.time();
		long now = Long.parseLong(time.get(0)) * 1_000_000 + Long.parseLong(time.get(1));
		decide(redis, sha, key, capacity, now);
		redis.slowlogReset();
		for (int run = 0; run < runs; run++) {
			now += PERIOD;
			decide(redis, sha, key, capacity, now);
		}
		List<Long> micros = new ArrayList<>();
		for (Slowlog entry : redis.slowlogGet(10_000)) {
			if (entry.getArgs().get(0).equalsIgnoreCase("evalsha")) {
				micros.add(entry.getExecutionTime());
			}
		}
		Collections.sort(micros);
		return micros;
	}

	private static void decide(Jedis redis, String sha, String key, long capacity, long now) {
		Object reply = redis.evalsha(sha, List.of(key), List.of(Long.toString(capacity), "1",
				Long.toString(capacity), Long.toString(PERIOD), Long.toString(now)));
		if (((Long) ((List<?>) reply).get(0)) != 1) {
			throw new IllegalStateException("Expected the whole capacity to be admitted, got " + reply);
		}
	}

}
