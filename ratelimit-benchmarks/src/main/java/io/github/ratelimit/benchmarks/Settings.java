package io.github.ratelimit.benchmarks;

import java.time.Duration;

/**
 * How long and how often a run measures.
 *
 * @param runs how many times every decision cell and every HTTP pair is measured (the report gives the median)
 * @param warmUp each decision cell's warm-up, discarded
 * @param measure each decision cell's measured interval
 * @param prime whether every client's keys are written once before anything is measured
 * @param memoryClients the fresh clients of the memory benchmark
 * @param denyCacheClients the refused clients of the deny cache benchmark
 * @param denyCacheRequests the requests each of them sends
 * @param httpWarmUps warm-up wrk runs of each sample app and path, and of each gateway route and connection count
 * @param httpSeconds each wrk run's length
 * @param wrkThreads wrk's threads
 * @param wrkConnections wrk's connections to the sample apps (the gateway cell's are
 * {@link GatewayOverhead#CONNECTIONS})
 * @param waiting the waiting cell's load and measured interval
 * @param jmhForks JMH's forks of each benchmark ({@link JmhDecisions}): 1 in a run; 0 (in this JVM, no fork to
 * start) in the smoke test, whose class path is surefire's
 */
record Settings(int runs, Duration warmUp, Duration measure, boolean prime, int memoryClients, int denyCacheClients,
		int denyCacheRequests, int httpWarmUps,
		int httpSeconds, int wrkThreads, int wrkConnections, WaitingPermits.Shape waiting, int jmhForks) {

	/**
	 * The settings of {@code run.sh}: system properties {@code benchmark.runs} (3), {@code benchmark.warmup} and
	 * {@code benchmark.measure} (seconds, 0.5 and 1.5), {@code benchmark.httpSeconds} (3),
	 * {@code benchmark.waitSeconds} (seconds each waiting contender is measured, 30).
	 * @return the settings
	 */
	static Settings fromSystemProperties() {
		return new Settings(Integer.parseInt(System.getProperty("benchmark.runs", "3")),
				seconds(System.getProperty("benchmark.warmup", "0.5")),
				seconds(System.getProperty("benchmark.measure", "1.5")), true, 1_000, 100, 200, 2,
				Integer.parseInt(System.getProperty("benchmark.httpSeconds", "3")), 1, 16,
				WaitingPermits.Shape.of(seconds(System.getProperty("benchmark.waitSeconds", "30"))), 1);
	}

	private static Duration seconds(String value) {
		return Duration.ofMillis(Math.round(1000 * Double.parseDouble(value)));
	}

}
