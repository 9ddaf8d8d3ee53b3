package io.github.ratelimit.benchmarks;

import java.util.List;
import java.util.function.IntPredicate;

/**
 * Redis memory per client key: decides once for a number of fresh clients, then asks MEMORY USAGE of each key and
 * compares used_memory before and after (which adds the keyspace's own overhead).
 */
final class MemoryPerKey {

	/** A limit whose keys live long enough (36 s after one permit) to be measured. */
	static final String LIMIT = "100/1h";

	private MemoryPerKey() {
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
