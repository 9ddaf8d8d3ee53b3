package io.github.ratelimit.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One {@code wrk} run against an app the benchmark started, with what it cost the app and Redis: the measurement of
 * every HTTP cell.
 *
 * @param requestsPerSecond throughput
 * @param p50Millis median latency
 * @param p99Millis 99th percentile latency
 * @param non2xx responses that were not 2xx or 3xx
 * @param requests the requests wrk completed
 * @param appCpuSeconds CPU seconds the app's process used meanwhile (NaN where unknown)
 * @param clientCpuBusy how busy the CPU of wrk and the app was, every process counted (NaN when not pinned)
 * @param scriptCalls the script calls (EVALSHA, EVAL) Redis received during the run, from any client
 */
record WrkRun(double requestsPerSecond, double p50Millis, double p99Millis, long non2xx, long requests,
		double appCpuSeconds, double clientCpuBusy, long scriptCalls) {

	private static final Pattern RATE = Pattern.compile("Requests/sec:\\s+([0-9.]+)");

	private static final Pattern REQUESTS = Pattern.compile("(\\d+) requests in");

	private static final Pattern NON_2XX = Pattern.compile("Non-2xx or 3xx responses:\\s+(\\d+)");

	/** wrk, as the benchmarks run it. */
	static final List<String> WRK = List.of("wrk");

	/**
	 * The wrk command of one run.
	 * @param pinning where wrk runs
	 * @param tool wrk ({@link #WRK}), or a command that takes wrk's options and prints what {@link #measure} reads
	 * @param threads wrk's threads
	 * @param connections its connections
	 * @param seconds how long it runs
	 * @param url what it requests
	 * @return the command
	 */
	static List<String> command(CpuPinning pinning, List<String> tool, int threads, int connections, int seconds,
			String url) {
		List<String> command = new ArrayList<>(tool);
		command.addAll(List.of("-t" + threads, "-c" + connections, "-d" + seconds + "s", "--latency", url));
		return pinning.client(command);
	}

	/**
	 * Runs wrk to completion, counting the app's CPU time ({@code /proc}), the client CPU's and Redis' script calls
	 * over the run.
	 * @param wrk the wrk command, pinned as it should run
	 * @param seconds how long wrk runs
	 * @param app the app under load
	 * @param redis an admin connection to the Redis server
	 * @param pinning where wrk and the app run
	 * @return the run
	 */
	static WrkRun measure(List<String> wrk, int seconds, Process app, RedisAdmin redis, CpuPinning pinning) {
		double cpuBefore = ProcessCpu.seconds(app.pid());
		CpuUsage cpusBefore = CpuUsage.now();
		RedisStats redisBefore = redis.stats();
		String output = Processes.run(wrk, seconds + 30L);
		long scriptCalls = redis.stats().since(redisBefore, seconds).scriptCalls();
		double appCpu = ProcessCpu.seconds(app.pid()) - cpuBefore;
		double clientCpuBusy = CpuUsage.now().busySince(cpusBefore, pinning.clientCpu());
		Matcher rate = RATE.matcher(output);
		Matcher requests = REQUESTS.matcher(output);
		if (!rate.find() || !requests.find()) {
			throw new IllegalStateException("Unexpected wrk output: " + output);
		}
		Matcher non2xx = NON_2XX.matcher(output);
		return new WrkRun(Double.parseDouble(rate.group(1)), percentile(output, "50%"), percentile(output, "99%"),
				non2xx.find() ? Long.parseLong(non2xx.group(1)) : 0, Long.parseLong(requests.group(1)), appCpu,
				clientCpuBusy, scriptCalls);
	}

	/**
	 * A latency percentile of wrk's --latency distribution, in milliseconds.
	 */
	static double percentile(String wrkOutput, String percentile) {
		Matcher matcher = Pattern.compile("^\\s*" + Pattern.quote(percentile) + "\\s+([0-9.]+)(us|ms|s)\\s*$",
				Pattern.MULTILINE).matcher(wrkOutput);
		if (!matcher.find()) {
			throw new IllegalStateException("No " + percentile + " latency in wrk output: " + wrkOutput);
		}
		double value = Double.parseDouble(matcher.group(1));
		return switch (matcher.group(2)) {
			case "us" -> value / 1000;
			case "s" -> value * 1000;
			default -> value;
		};
	}

	/**
	 * The app's CPU per request.
	 * @return microseconds
	 */
	double appCpuMicrosPerRequest() {
		return (this.requests > 0) ? this.appCpuSeconds * 1e6 / this.requests : Double.NaN;
	}

	/**
	 * Redis script calls per request: the round trips to Redis a request cost, measured.
	 * @return calls per request
	 */
	double scriptCallsPerRequest() {
		return (this.requests > 0) ? this.scriptCalls / (double) this.requests : Double.NaN;
	}

}
