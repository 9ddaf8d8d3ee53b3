package io.github.ratelimit.benchmarks;

import java.util.ArrayList;
import java.util.List;

import io.github.ratelimit.core.Algorithm;

/**
 * The ceiling: {@code redis-benchmark} running EVALSHA of the same script, unpipelined ({@code -P 1}), with a number
 * of connections, over 10,000 random keys and the same arguments as our backend sends.
 */
final class RedisBenchmarkTool {

	private final String host;

	private final int port;

	RedisBenchmarkTool(String host, int port) {
		this.host = host;
		this.port = port;
	}

	/**
	 * Runs about {@code seconds} worth of EVALSHA calls, sized from a short calibration run.
	 * @param algorithm the script's algorithm, whose arguments are sent
	 * @param keyPrefix the keys' prefix, one per script (the scripts keep different types)
	 * @param sha the script's SHA-1
	 * @param connections the client connections
	 * @param seconds roughly how long to run
	 * @return requests per second
	 */
	double run(Algorithm algorithm, String keyPrefix, String sha, int connections, double seconds) {
		double estimate = requestsPerSecond(algorithm, keyPrefix, sha, connections, 2_000);
		long requests = Math.max(5_000, Math.min(2_000_000, Math.round(estimate * seconds)));
		return requestsPerSecond(algorithm, keyPrefix, sha, connections, requests);
	}

	List<String> command(Algorithm algorithm, String keyPrefix, String sha, int connections, long requests) {
		List<String> command = new ArrayList<>(List.of("redis-benchmark", "-h", this.host, "-p",
				Integer.toString(this.port), "-n", Long.toString(requests), "-c", Integer.toString(connections), "-P",
				"1", "-r", Integer.toString(DecisionLoad.KEYS), "--csv", "EVALSHA", sha, "1",
				keyPrefix + ":{__rand_int__}:0"));
		command.addAll(OurLimiter.scriptArguments(algorithm));
		return command;
	}

	private double requestsPerSecond(Algorithm algorithm, String keyPrefix, String sha, int connections,
			long requests) {
		String output = Processes.run(command(algorithm, keyPrefix, sha, connections, requests), 120);
		for (String line : output.split("\r?\n")) {
			if (line.startsWith("\"EVALSHA")) {
				return Double.parseDouble(line.split(",")[1].replace("\"", ""));
			}
		}
		throw new IllegalStateException("Unexpected redis-benchmark output: " + output);
	}

}
