package io.github.ratelimit.benchmarks;

import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

import io.github.ratelimit.core.Algorithm;
import org.jspecify.annotations.Nullable;

/**
 * Everything one run measured, as the report and the chart read it.
 */
final class Results {

	/** Ours: per algorithm, per thread count. */
	final Map<Algorithm, Map<Integer, Throughput>> ours = new EnumMap<>(Algorithm.class);

	/** EVALSHA usec_per_call during our runs: per algorithm, per thread count. */
	final Map<Algorithm, Map<Integer, Double>> ourUsecPerCall = new EnumMap<>(Algorithm.class);

	/** redis-benchmark EVALSHA of the same script: per algorithm, per connection count. */
	final Map<Algorithm, Map<Integer, Double>> ceiling = new EnumMap<>(Algorithm.class);

	/** EVALSHA usec_per_call during the redis-benchmark runs: per algorithm, per connection count. */
	final Map<Algorithm, Map<Integer, Double>> ceilingUsecPerCall = new EnumMap<>(Algorithm.class);

	/** Bucket4j: per thread count. */
	final Map<Integer, Throughput> bucket4j = new TreeMap<>();

	/** Memory per client key: per algorithm name, and "Bucket4j". */
	final Map<String, MemoryPerKey.Result> memory = new LinkedHashMap<>();

	/** Deny cache on and off. */
	final Map<Boolean, DenyCacheCalls.Result> denyCache = new LinkedHashMap<>();

	HttpOverhead.@Nullable Result http;

	/** Why the HTTP part was not measured, when it was not. */
	@Nullable String httpSkipped;

	/** Why redis-benchmark was not run, when it was not. */
	@Nullable String ceilingSkipped;

	static <K, V> Map<Integer, V> row(Map<K, Map<Integer, V>> table, K key) {
		return table.computeIfAbsent(key, (k) -> new TreeMap<>());
	}

}
