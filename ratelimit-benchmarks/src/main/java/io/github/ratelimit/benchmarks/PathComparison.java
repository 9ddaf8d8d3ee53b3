package io.github.ratelimit.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.core.Policy;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.redis.PlainLettuceLimiter;

/**
 * The decision paths of one build beside plain Lettuce, for {@code compare.sh}, which runs it alternately on two
 * builds (a base commit's and the working tree's) and then summarizes: our blocking {@code tryAcquire}, our
 * {@code tryAcquireAsync} awaited by the caller, and plain Lettuce's {@code sync().evalsha} with the same script and
 * arguments, on a token bucket over 10,000 keys at 1, 16 and 64 threads, measured one right after the other (their
 * order rotating) in a JVM pinned to one CPU, Redis to the other. Each line it prints gives a path's decisions per
 * second and client CPU per decision as ratios to plain Lettuce's in the same round.
 * <p>
 * Arguments: {@code measure <label> <rounds>} or {@code summarize <file of their lines>}.
 */
public final class PathComparison {

	private static final Pattern LINE = Pattern.compile(
			"PATH (\\S+) round=(\\S+) path=(\\S+) threads=(\\d+) perSecond=\\S+ ratio=(\\S+) cpuMicros=\\S+ cpuRatio=(\\S+)");

	private PathComparison() {
	}

	/**
	 * Measures or summarizes.
	 * @param args {@code measure <label> <rounds>} or {@code summarize <file>}
	 * @throws IOException when the file cannot be read
	 */
	public static void main(String[] args) throws IOException {
		if (args.length == 3 && args[0].equals("measure")) {
			measure(args[1], Integer.parseInt(args[2]));
		}
		else if (args.length == 2 && args[0].equals("summarize")) {
			summarize(Path.of(args[1]));
		}
		else {
			throw new IllegalArgumentException("Usage: PathComparison measure <label> <rounds> | summarize <file>");
		}
	}

	private static void measure(String label, int rounds) {
		CpuPinning pinning = CpuPinning.fromSystemProperties();
		try (RedisServerProcess server = RedisServerProcess
			.start(System.getProperty("benchmark.redisServer", "redis-server"), pinning);
				RedisAdmin admin = new RedisAdmin(server);
				OurBackend backend = new OurBackend(server)) {
			DecisionLoad load = new DecisionLoad(Duration.ofMillis(800), Duration.ofMillis(2000), pinning);
			Policy policy = OurLimiter.policy(Algorithm.TOKEN_BUCKET, OurLimiter.LIMIT);
			RateLimiter limiter = backend.backend().create(policy);
			String[] clients = OurLimiter.clients();
			Map<String, Contender> paths = new TreeMap<>();
			paths.put("tryAcquire", contender(() -> backend.close(), (client) -> limiter.tryAcquire(clients[client], 1)
				.allowed()));
			paths.put("tryAcquireAsync", contender(() -> {
			}, (client) -> limiter.tryAcquireAsync(clients[client], 1).toCompletableFuture().join().allowed()));
			try (Contender plain = new PlainLettuceLimiter(server.host(), server.port(), OurLimiter.KEY_PREFIX, policy,
					clients)) {
				List<Contender> order = new ArrayList<>(paths.values());
				order.add(plain);
				order.forEach(DecisionBenchmark::prime);
				// round 0 warms the JIT up for every path and is not reported
				for (int round = 0; round <= rounds; round++) {
					for (int threads : DecisionBenchmark.THREADS) {
						Collections.rotate(order, 1);
						Map<Contender, Measurement> measured = new HashMap<>();
						for (Contender contender : order) {
							measured.put(contender, load.run(contender, threads, admin));
						}
						Measurement base = measured.get(plain);
						for (Map.Entry<String, Contender> path : paths.entrySet()) {
							Measurement m = measured.get(path.getValue());
							if (round > 0) {
								System.out.printf("PATH %s round=%d path=%s threads=%d perSecond=%.0f ratio=%.3f "
										+ "cpuMicros=%.2f cpuRatio=%.3f%n", label, round, path.getKey(), threads,
										m.perSecond(), m.perSecond() / base.perSecond(),
										m.clientCpuMicrosPerDecision(),
										m.clientCpuMicrosPerDecision() / base.clientCpuMicrosPerDecision());
							}
						}
					}
				}
			}
		}
	}

	private static Contender contender(Runnable close, java.util.function.IntPredicate decide) {
		return new Contender() {

			@Override
			public boolean decide(int client) {
				return decide.test(client);
			}

			@Override
			public void close() {
				close.run();
			}

		};
	}

	private static void summarize(Path file) throws IOException {
		List<String> lines = Files.readAllLines(file);
		Map<String, List<double[]>> cells = new TreeMap<>();
		for (String line : lines) {
			Matcher m = LINE.matcher(line);
			if (m.find()) {
				String cell = String.format("| %s | `%s` | %2s |", m.group(1), m.group(3), m.group(4));
				cells.computeIfAbsent(cell, (k) -> new ArrayList<>())
					.add(new double[] { Double.parseDouble(m.group(5)), Double.parseDouble(m.group(6)) });
			}
		}
		if (cells.isEmpty()) {
			return;
		}
		System.out.println("| build | path | threads | decisions/s vs plain Lettuce: median [range] "
				+ "| client CPU per decision vs plain Lettuce: median [range] | rounds |");
		System.out.println("|---|---|---|---|---|---|");
		cells.forEach((cell, values) -> System.out.printf("%s %s | %s | %d |%n", cell, spread(values, 0),
				spread(values, 1), values.size()));
	}

	private static String spread(List<double[]> values, int index) {
		List<Double> sorted = values.stream().map((v) -> v[index]).sorted().toList();
		int n = sorted.size();
		double median = (n % 2 == 1) ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
		return String.format("%.3fx [%.2f–%.2f]", median, sorted.get(0), sorted.get(n - 1));
	}

}
