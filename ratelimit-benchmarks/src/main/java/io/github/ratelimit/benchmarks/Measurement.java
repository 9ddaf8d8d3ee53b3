package io.github.ratelimit.benchmarks;

import org.jspecify.annotations.Nullable;

/**
 * One measured interval of one contender: how many decisions it made and what they cost the client and Redis.
 *
 * @param perSecond decisions per second over the interval
 * @param decisions decisions made in the interval
 * @param errors decisions that threw
 * @param clientCpuSeconds CPU seconds the benchmark JVM used in the interval (NaN for an external tool)
 * @param redis what Redis did in the interval, or {@code null} when not observed
 * @param clientCpuBusy how busy the clients' CPU was, every process on it counted (NaN when not pinned)
 * @param redisCpuBusy how busy Redis' CPU was, every process on it counted (NaN when not pinned)
 */
record Measurement(double perSecond, long decisions, long errors, double clientCpuSeconds,
		RedisStats.@Nullable Delta redis, double clientCpuBusy, double redisCpuBusy) {

	/**
	 * Client CPU per decision, everything the JVM did included (the calling threads, Lettuce's event loop, GC).
	 * @return microseconds, NaN when not measured
	 */
	double clientCpuMicrosPerDecision() {
		return (this.decisions > 0) ? this.clientCpuSeconds * 1e6 / this.decisions : Double.NaN;
	}

	/**
	 * Redis' CPU per decision, everything included (reading, parsing, executing, replying).
	 * @return microseconds, NaN when not observed
	 */
	double redisCpuMicrosPerDecision() {
		return (this.redis != null && this.decisions > 0) ? this.redis.cpuSeconds() * 1e6 / this.decisions
				: Double.NaN;
	}

	/**
	 * The share of its CPU Redis used.
	 * @return CPU seconds per second, NaN when not observed
	 */
	double redisCpuShare() {
		return (this.redis != null) ? this.redis.cpuShare() : Double.NaN;
	}

	/**
	 * Redis' time inside each script call ({@code usec_per_call}).
	 * @return microseconds, NaN when not observed or without script calls
	 */
	double usecPerScriptCall() {
		return (this.redis != null) ? this.redis.usecPerScriptCall() : Double.NaN;
	}

	/**
	 * The share of one CPU the benchmark JVM used.
	 * @return CPU seconds per second, NaN when not measured
	 */
	double clientCpuShare() {
		return (this.redis != null && this.redis.seconds() > 0) ? this.clientCpuSeconds / this.redis.seconds()
				: Double.NaN;
	}

}
