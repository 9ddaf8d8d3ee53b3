package io.github.ratelimit.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import io.github.ratelimit.core.Policy;
import io.github.ratelimit.redis.OurScript;

/**
 * {@code redis-benchmark} running EVALSHA of our script with the backend's keys layout and arguments
 * ({@link OurScript}), unpipelined ({@code -P 1}), with as many connections as the load has threads, over 10,000
 * random clients: what a small C client gets from the same script.
 */
final class RedisBenchmarkTool {

	/** The client part redis-benchmark replaces with a random 12-digit number below {@code -r}. */
	static final String RANDOM_CLIENT = "__rand_int__";

	private final OwnRedis redis;

	private final CpuPinning pinning;

	RedisBenchmarkTool(OwnRedis redis, CpuPinning pinning) {
		this.redis = redis;
		this.pinning = pinning;
	}

	/**
	 * The clients redis-benchmark's random keys name, so that their keys can be written before anything is measured.
	 * @return one client per random number
	 */
	static String[] clients() {
		String[] clients = new String[DecisionLoad.KEYS];
		for (int i = 0; i < clients.length; i++) {
			clients[i] = String.format(Locale.ROOT, "%012d", i);
		}
		return clients;
	}

	/**
	 * Runs about {@code seconds} worth of EVALSHA calls, sized from a short calibration run.
	 * @param policy the policy whose script call is sent
	 * @param connections the client connections
	 * @param seconds roughly how long to run
	 * @param admin the Redis statistics, observed around the measured run
	 * @return what was measured (no client CPU: the tool is another process)
	 */
	Measurement run(Policy policy, int connections, double seconds, RedisAdmin admin) {
		double estimate = requestsPerSecond(policy, connections, 2_000);
		long requests = Math.max(5_000, Math.min(5_000_000, Math.round(estimate * seconds)));
		RedisStats before = admin.stats();
		CpuUsage cpusBefore = CpuUsage.now();
		long start = System.nanoTime();
		double perSecond = requestsPerSecond(policy, connections, requests);
		double elapsed = (System.nanoTime() - start) / 1e9;
		CpuUsage cpus = CpuUsage.now();
		return new Measurement(perSecond, requests, 0, Double.NaN, admin.stats().since(before, elapsed),
				cpus.busySince(cpusBefore, this.pinning.clientCpu()), cpus.busySince(cpusBefore, this.pinning.redisCpu()));
	}

	List<String> command(Policy policy, int connections, long requests) {
		OurScript script = new OurScript(OurLimiter.KEY_PREFIX, policy);
		List<String> keys = script.keys(RANDOM_CLIENT);
		List<String> command = new ArrayList<>(List.of("redis-benchmark", "-h", this.redis.host(), "-p",
				Integer.toString(this.redis.port()), "-n", Long.toString(requests), "-c",
				Integer.toString(connections), "-P", "1", "-r", Integer.toString(DecisionLoad.KEYS), "--csv", "EVALSHA",
				script.sha1(), Integer.toString(keys.size())));
		command.addAll(keys);
		command.addAll(script.argumentText());
		return this.pinning.client(command);
	}

	private double requestsPerSecond(Policy policy, int connections, long requests) {
		String output = Processes.run(command(policy, connections, requests), 120);
		for (String line : output.split("\r?\n")) {
			if (line.startsWith("\"EVALSHA")) {
				return Double.parseDouble(line.split(",")[1].replace("\"", ""));
			}
		}
		throw new IllegalStateException("Unexpected redis-benchmark output: " + output);
	}

}
