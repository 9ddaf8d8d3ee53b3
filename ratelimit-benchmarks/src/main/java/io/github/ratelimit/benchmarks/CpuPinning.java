package io.github.ratelimit.benchmarks;

import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * Which CPU each process of a run is pinned to with {@code taskset}: Redis to a CPU of its own, everything else (this
 * JVM, redis-benchmark, wrk, the sample apps) to another, so that no client takes CPU from Redis' single thread.
 *
 * @param redisCpu the CPU Redis runs on, or {@code null} for no pinning
 * @param clientCpu the CPU everything else runs on, or {@code null} for no pinning
 */
record CpuPinning(@Nullable String redisCpu, @Nullable String clientCpu) {

	static CpuPinning none() {
		return new CpuPinning(null, null);
	}

	/**
	 * The pinning given by the system properties {@code benchmark.redisCpu} and {@code benchmark.clientCpu}, as
	 * {@code run.sh} sets them.
	 * @return the pinning
	 */
	static CpuPinning fromSystemProperties() {
		return new CpuPinning(blankToNull(System.getProperty("benchmark.redisCpu")),
				blankToNull(System.getProperty("benchmark.clientCpu")));
	}

	List<String> redis(List<String> command) {
		return pinned(this.redisCpu, command);
	}

	List<String> client(List<String> command) {
		return pinned(this.clientCpu, command);
	}

	String describe() {
		if (this.redisCpu == null && this.clientCpu == null) {
			return "none: Redis and every client share all CPUs";
		}
		return "Redis alone on CPU " + this.redisCpu + " (`taskset -c " + this.redisCpu + "`); the benchmark JVM, "
				+ "redis-benchmark, wrk and the sample apps' JVMs on CPU " + this.clientCpu + " (`taskset -c "
				+ this.clientCpu + "`)";
	}

	private static List<String> pinned(@Nullable String cpu, List<String> command) {
		if (cpu == null) {
			return command;
		}
		List<String> pinned = new ArrayList<>(List.of("taskset", "-c", cpu));
		pinned.addAll(command);
		return pinned;
	}

	private static @Nullable String blankToNull(@Nullable String value) {
		return (value == null || value.isBlank()) ? null : value.trim();
	}

}
