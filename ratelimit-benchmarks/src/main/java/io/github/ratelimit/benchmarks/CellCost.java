package io.github.ratelimit.benchmarks;

import io.github.ratelimit.benchmarks.DecisionBenchmark.Kind;
import io.github.ratelimit.core.Algorithm;

/**
 * What one cell's decisions cost, each value the median over the runs: what the report explains misses with.
 *
 * @param perSecond decisions per second
 * @param clientCpuMicros the benchmark JVM's CPU per decision, microseconds (NaN for redis-benchmark)
 * @param clientCpuShare the share of its CPU the benchmark JVM used (NaN for redis-benchmark)
 * @param redisCpuMicros Redis' CPU per decision, microseconds, everything included (I/O, parsing, the script)
 * @param redisCpuShare the share of its CPU Redis used
 * @param clientCpuBusy how busy the clients' CPU was, every process counted (NaN when not pinned)
 * @param redisCpuBusy how busy Redis' CPU was, every process counted (NaN when not pinned)
 */
record CellCost(double perSecond, double clientCpuMicros, double clientCpuShare, double redisCpuMicros,
		double redisCpuShare, double clientCpuBusy, double redisCpuBusy) {

	/** A CPU busy this share of the interval or more is taken as the bottleneck. */
	static final double SATURATED = 0.9;

	static CellCost of(DecisionBenchmark.Decisions decisions, Kind kind, Algorithm algorithm, int threads) {
		return new CellCost(decisions.rate(kind, algorithm, threads).median(),
				decisions.spread(kind, algorithm, threads, Measurement::clientCpuMicrosPerDecision).median(),
				decisions.spread(kind, algorithm, threads, Measurement::clientCpuShare).median(),
				decisions.spread(kind, algorithm, threads, Measurement::redisCpuMicrosPerDecision).median(),
				decisions.spread(kind, algorithm, threads, Measurement::redisCpuShare).median(),
				decisions.spread(kind, algorithm, threads, Measurement::clientCpuBusy).median(),
				decisions.spread(kind, algorithm, threads, Measurement::redisCpuBusy).median());
	}

	/**
	 * Microseconds each decision took from start to answer, as one thread sees it.
	 * @param threads the threads sharing the rate
	 * @return the latency
	 */
	double latencyMicros(int threads) {
		return threads * 1e6 / this.perSecond;
	}

	/**
	 * Whether the clients' CPU was the bottleneck: busy nearly all the time, whoever used it (the benchmark JVM, or
	 * other processes it had to share the CPU with).
	 */
	boolean clientBound() {
		return (Double.isNaN(this.clientCpuBusy) ? this.clientCpuShare : this.clientCpuBusy) >= SATURATED;
	}

	/**
	 * Whether Redis' CPU was the bottleneck, in the same sense.
	 */
	boolean redisBound() {
		return (Double.isNaN(this.redisCpuBusy) ? this.redisCpuShare : this.redisCpuBusy) >= SATURATED;
	}

}
