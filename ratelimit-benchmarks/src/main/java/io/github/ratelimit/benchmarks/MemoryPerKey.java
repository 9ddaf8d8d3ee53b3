package io.github.ratelimit.benchmarks;

import java.util.List;
import java.util.function.IntPredicate;

/**
 * Redis memory per client key: decides once for a number of fresh clients, then asks MEMORY USAGE of each key and
 * compares used_memory before and after (which adds the keyspace's own overhead).
 */
final class MemoryPerKey {

	/** What the measured limit allows, in words: it is {@link #limit}'s. */
	static final String LIMIT = "100 an hour";

	private static final long HOUR_MILLIS = 3_600_000L;

	private MemoryPerKey() {
	}

	/**
	 * The limit measured: 100 per a period of about an hour, in milliseconds, whose current window (windows are
	 * aligned to the epoch) began at most about eight minutes ago. Its keys then live long enough to be measured (a
	 * token bucket's 36 s after one permit, a fixed window's until the window's end, at least 50 minutes away),
	 * whenever the benchmark runs: {@code 100/1h} itself would end a fixed window's keys before they are measured, were
	 * the measurement to straddle the hour.
	 * @param redisMillis Redis' clock, which the decisions read
	 * @return the limit, such as {@code 100/3600412ms}
	 */
	static String limit(long redisMillis) {
		long windows = redisMillis / HOUR_MILLIS;
		// windows periods of redisMillis / windows end at most windows milliseconds before now: the current one began
		return "100/" + (redisMillis / windows) + "ms";
	}

	/**
	 * Measures one algorithm's (or Bucket4j's) keys.
	 * @param redis the server, flushed first
	 * @param clients how many clients decide once each
	 * @param decide one decision for a client index
	 * @param pattern the pattern of the keys it writes
	 * @return the measurement
	 */
	static Result measure(RedisAdmin redis, int clients, IntPredicate decide, String pattern) {
		redis.flushAll();
		long before = redis.usedMemory();
		for (int i = 0; i < clients; i++) {
			decide.test(i);
		}
		long after = redis.usedMemory();
		List<Long> sizes = redis.memoryUsage(pattern);
		double average = sizes.stream().mapToLong(Long::longValue).average().orElse(0);
		String example = redis.anyKey(pattern);
		return new Result(sizes.size(), average, (after - before) / (double) clients, example);
	}

	/**
	 * Memory of the keys of one contender.
	 *
	 * @param keys keys found
	 * @param memoryUsage average MEMORY USAGE of a key, bytes
	 * @param usedMemoryPerClient growth of used_memory per client, bytes
	 * @param exampleKey one of the keys
	 */
	record Result(int keys, double memoryUsage, double usedMemoryPerClient, String exampleKey) {

	}

}
