package io.github.ratelimit.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.function.ToDoubleBiFunction;

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
	 * Script calls (EVALSHA and EVAL) Redis counted per decision made: the round trips a decision cost, measured.
	 * @return calls per decision, NaN when not observed
	 */
	double scriptCallsPerDecision() {
		return (this.redis != null && this.decisions > 0) ? this.redis.scriptCalls() / (double) this.decisions
				: Double.NaN;
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

	/**
	 * A ratio of two contenders' measurements, taken run by run (the i-th of each was measured side by side).
	 * @param top the numerator's measurements in run order
	 * @param bottom the denominator's measurements in run order
	 * @param ratio the ratio of one run's two measurements
	 * @return the ratios' spread
	 */
	static Spread ratios(List<Measurement> top, List<Measurement> bottom,
			ToDoubleBiFunction<Measurement, Measurement> ratio) {
		List<Double> ratios = new ArrayList<>();
		for (int run = 0; run < Math.min(top.size(), bottom.size()); run++) {
			ratios.add(ratio.applyAsDouble(top.get(run), bottom.get(run)));
		}
		return Spread.of(ratios);
	}

}
