package io.github.ratelimit.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Runs {@link DecisionsJmh} on JMH, throughput mode, with its GC profiler: decisions per second and bytes allocated
 * per decision ({@code gc.alloc.rate.norm}) of each in-process decision cell, at 1 and 16 threads, in one fork each
 * (which inherits this JVM's CPU pinning).
 */
final class JmhDecisions {

	/** The benchmarks, in the report's order. */
	static final List<String> BENCHMARKS = List.of("exact", "plainLettuce", "leased", "leasedFromLease", "inMemory",
			"denyCache", "chainLeased");

	static final List<Integer> THREADS = List.of(1, 16);

	private static final String ALLOCATION = "gc.alloc.rate.norm";

	private JmhDecisions() {
	}

	/**
	 * Runs every benchmark at every thread count.
	 * @param redis the run's Redis server
	 * @param warmUp each warm-up iteration (2 of them)
	 * @param measure each measured iteration (3 of them)
	 * @param forks the forks of each benchmark: 1, or 0 to run in this JVM
	 * @param log progress
	 * @return the results
	 */
	static Measured measure(OwnRedis redis, Duration warmUp, Duration measure, int forks, Consumer<String> log) {
		List<Cell> cells = new ArrayList<>();
		if (forks == 0) {
			// the benchmarks run in this JVM, which the fork's arguments below do not reach
			System.setProperty(DecisionsJmh.HOST, redis.host());
			System.setProperty(DecisionsJmh.PORT, Integer.toString(redis.port()));
		}
		for (int threads : THREADS) {
			log.accept("JMH decisions, " + threads + " thread(s)");
			Options options = new OptionsBuilder().include(DecisionsJmh.class.getName() + "\\.")
				.forks(forks)
				.threads(threads)
				.warmupIterations(2)
				.warmupTime(time(warmUp))
				.measurementIterations(3)
				.measurementTime(time(measure))
				.timeUnit(TimeUnit.SECONDS)
				.addProfiler(GCProfiler.class)
				.jvmArgsAppend("-Xmx512m", "-D" + DecisionsJmh.HOST + "=" + redis.host(),
						"-D" + DecisionsJmh.PORT + "=" + redis.port())
				.shouldFailOnError(true)
				.build();
			Collection<RunResult> results;
			try {
				results = new Runner(options).run();
			}
			catch (RunnerException ex) {
				throw new IllegalStateException("JMH failed: " + ex.getMessage(), ex);
			}
			for (RunResult result : results) {
				String label = result.getParams().getBenchmark();
				String name = label.substring(label.lastIndexOf('.') + 1);
				Result<?> primary = result.getPrimaryResult();
				Result<?> allocation = result.getSecondaryResults().get(ALLOCATION);
				cells.add(new Cell(name, threads, primary.getScore(), primary.getScoreError(),
						(allocation != null) ? allocation.getScore() : Double.NaN));
			}
		}
		return new Measured(cells);
	}

	/**
	 * A benchmark's name in the report.
	 * @param benchmark the method's name
	 * @return its label
	 */
	static String label(String benchmark) {
		return switch (benchmark) {
			case "exact" -> "exact (our Redis backend)";
			case "plainLettuce" -> "plain Lettuce, our script";
			case "leased" -> "leased, `tryAcquire`";
			case "leasedFromLease" -> "leased, `tryFromLease`";
			case "inMemory" -> "in-memory";
			case "denyCache" -> "deny cache, a refused client";
			case "chainLeased" -> "the servlet filter's chain, leased, one request";
			default -> benchmark;
		};
	}

	private static TimeValue time(Duration duration) {
		return TimeValue.milliseconds(Math.max(100, duration.toMillis()));
	}

	/**
	 * One benchmark at one thread count.
	 *
	 * @param benchmark the benchmark method's name
	 * @param threads the threads
	 * @param perSecond decisions per second, all threads together
	 * @param error JMH's 99.9% confidence half-interval of it
	 * @param bytesPerDecision bytes allocated per decision
	 */
	record Cell(String benchmark, int threads, double perSecond, double error, double bytesPerDecision) {

	}

	/**
	 * Every cell measured.
	 *
	 * @param cells the cells
	 */
	record Measured(List<Cell> cells) {

		Cell of(String benchmark, int threads) {
			return this.cells.stream()
				.filter((cell) -> cell.benchmark().equals(benchmark) && cell.threads() == threads)
				.findFirst()
				.orElseThrow(() -> new IllegalStateException("JMH measured no " + benchmark + " at " + threads));
		}

		static String bytes(double bytes) {
			return Double.isNaN(bytes) ? "-" : String.format(Locale.ROOT, "%,.0f B", bytes);
		}

	}

}
