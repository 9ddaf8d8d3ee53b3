package io.github.ratelimit.benchmarks;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

import io.github.ratelimit.core.Algorithm;
import org.jspecify.annotations.Nullable;

/**
 * Runs every benchmark against a {@code redis-server} it starts itself and writes {@code benchmarks.md} and
 * {@code benchmarks-throughput.png}.
 * <p>
 * Arguments: {@code <docs directory> <sample-app jar> <sample-webflux-app jar> <sample-gateway jar>}. System
 * properties (set by {@code run.sh}): {@code benchmark.redisServer} (the binary), {@code benchmark.redisCpu} and
 * {@code benchmark.clientCpu} (the pinning; this JVM must already run on the client CPU), {@code benchmark.command} and
 * {@code benchmark.loadBeforeBuild} (for the report), {@code benchmark.only} ({@code gateway}: the gateway cell alone,
 * its section written to {@value #GATEWAY_ONLY_REPORT} and not to the docs; {@code waiting}: the waiting cell alone,
 * written to {@value #WAITING_ONLY_REPORT}), and those of {@link Settings}.
 */
public final class RunBenchmarks {

	static final String HOST = "127.0.0.1";

	/** Where a run of the gateway cell alone writes its section, from the repository's root. */
	static final String GATEWAY_ONLY_REPORT = "ratelimit-benchmarks/target/benchmarks-gateway.md";

	/** Where a run of the waiting cell alone writes its section, from the repository's root. */
	static final String WAITING_ONLY_REPORT = "ratelimit-benchmarks/target/benchmarks-waiting.md";

	private static final long STARTED = System.nanoTime();

	private RunBenchmarks() {
	}

	/**
	 * Runs every benchmark and writes the report.
	 * @param args the docs directory, the sample-app jar, the sample-webflux-app jar and the sample-gateway jar
	 * @throws Exception when a benchmark cannot run
	 */
	public static void main(String[] args) throws Exception {
		if (args.length != 4) {
			throw new IllegalArgumentException("Usage: RunBenchmarks <docs directory> <sample-app jar> "
					+ "<sample-webflux-app jar> <sample-gateway jar>");
		}
		Path docs = Path.of(args[0]);
		HttpOverhead.Jars sampleJars = new HttpOverhead.Jars(args[1], args[2]);
		Settings settings = Settings.fromSystemProperties();
		CpuPinning pinning = CpuPinning.fromSystemProperties();
		String executable = System.getProperty("benchmark.redisServer", "redis-server");
		Environment environment = Environment.now(
				System.getProperty("benchmark.command", "ratelimit-benchmarks/run.sh"),
				System.getProperty("benchmark.loadBeforeBuild", "unknown"), pinning,
				Processes.firstLine(List.of(executable, "--version")));
		try (RedisServerProcess server = RedisServerProcess.start(executable, pinning);
				RedisAdmin redis = new RedisAdmin(server)) {
			String version = redis.version();
			log("Redis " + version + " on port " + server.port() + "; pinning: " + pinning.describe());
			String only = System.getProperty("benchmark.only", "");
			switch (only) {
				case "" -> {
				}
				case "gateway" -> {
					String skipped = gatewaySkipped(args[3]);
					if (skipped != null) {
						throw new IllegalStateException("The gateway cell cannot run: " + skipped);
					}
					GatewayOverhead.Result gateway = gateway(server, settings, pinning, args[3], RunBenchmarks::log);
					writeAlone(GATEWAY_ONLY_REPORT, new GatewayReport(gateway, settings).markdown(), "gateway");
					return;
				}
				case "waiting" -> {
					WaitingPermits.Result waiting = WaitingPermits.measure(server, redis, settings.waiting(),
							settings.runs(), pinning, RunBenchmarks::log);
					writeAlone(WAITING_ONLY_REPORT, new WaitingReport(waiting).markdown(), "waiting");
					return;
				}
				default -> throw new IllegalArgumentException("benchmark.only (BENCHMARK_ONLY) is 'gateway', 'waiting' "
						+ "or empty, not '" + only + "'");
			}
			Results results = measure(server, redis, settings, pinning, tool("redis-benchmark"), sampleJars,
					args[3], RunBenchmarks::log);
			environment = environment.finished(version);
			Files.createDirectories(docs);
			ThroughputChart.write(BenchmarkReport.chartSeries(results), docs.resolve("benchmarks-throughput.png"));
			Files.writeString(docs.resolve("benchmarks.md"),
					new BenchmarkReport(results, environment, settings).markdown());
			log("wrote " + docs.resolve("benchmarks.md") + " and " + docs.resolve("benchmarks-throughput.png"));
		}
	}

	/**
	 * Runs every benchmark on a Redis server the caller started.
	 * @param server the server, flushed and filled at will
	 * @param redis an admin connection to it
	 * @param settings how long and how often
	 * @param pinning where external tools and the sample apps run
	 * @param redisBenchmark whether to run redis-benchmark
	 * @param sampleJars the sample apps' jars, or {@code null} to skip the HTTP benchmark
	 * @param gatewayJar the gateway sample's jar, or {@code null} to skip the gateway cell
	 * @param log progress
	 * @return the results
	 */
	static Results measure(OwnRedis server, RedisAdmin redis, Settings settings, CpuPinning pinning,
			boolean redisBenchmark, HttpOverhead.@Nullable Jars sampleJars, @Nullable String gatewayJar,
			Consumer<String> log) {
		DecisionLoad load = new DecisionLoad(settings.warmUp(), settings.measure(), pinning);
		RedisBenchmarkTool tool = redisBenchmark ? new RedisBenchmarkTool(server, pinning) : null;
		DecisionBenchmark.Decisions decisions = new DecisionBenchmark(server, redis, load, DecisionBenchmark.THREADS,
				tool, settings.prime(), log).run(settings.runs());
		redis.flushAll();
		PlanDecisions.Result plans = PlanDecisions.measure(server, redis, load, DecisionBenchmark.THREADS,
				settings.runs(), settings.prime(), log);
		redis.flushAll();
		LeaseDecisions.Result leases = LeaseDecisions.measure(server, redis, load, DecisionBenchmark.THREADS,
				settings.runs(), settings.prime(), log);
		Results results = new Results(decisions, plans, leases);
		redis.flushAll();
		results.jmh = JmhDecisions.measure(server, settings.warmUp(), settings.measure(), settings.jmhForks(), log);
		if (tool == null) {
			results.redisBenchmarkSkipped = "redis-benchmark is not installed (apt-get install redis-tools)";
		}
		redis.flushAll();
		log.accept("memory per key");
		memory(results, server, redis, settings.memoryClients());
		log.accept("deny cache");
		for (boolean cacheOn : List.of(true, false)) {
			results.denyCache.put(cacheOn, DenyCacheCalls.measure(server, redis, cacheOn, settings.denyCacheClients(),
					settings.denyCacheRequests()));
		}
		redis.flushAll();
		results.waiting = WaitingPermits.measure(server, redis, settings.waiting(), settings.runs(), pinning, log);
		redis.flushAll();
		if (sampleJars == null) {
			results.httpSkipped = "not asked for";
		}
		else if (!tool("wrk")) {
			results.httpSkipped = "wrk is not installed (apt-get install wrk)";
		}
		else if (sampleJars.missing() != null) {
			results.httpSkipped = "the sample app jar " + sampleJars.missing() + " was not built";
		}
		else {
			results.http = new HttpOverhead(sampleJars, server, pinning, settings.wrkThreads(),
					settings.wrkConnections(), settings.httpSeconds(), log)
				.measure(settings.runs(), settings.httpWarmUps());
		}
		redis.flushAll();
		results.gatewaySkipped = gatewaySkipped(gatewayJar);
		if (gatewayJar != null && results.gatewaySkipped == null) {
			results.gateway = gateway(server, settings, pinning, gatewayJar, log);
		}
		return results;
	}

	private static void writeAlone(String file, String markdown, String cell) throws IOException {
		Path report = Path.of(file);
		Files.createDirectories(report.getParent());
		Files.writeString(report, markdown);
		log("wrote " + report + " (the " + cell + " cell alone; docs untouched)");
	}

	/**
	 * Why the gateway cell cannot run.
	 * @param jar the gateway sample's jar, or {@code null} when not asked for
	 * @return the reason, or {@code null} when it can run
	 */
	static @Nullable String gatewaySkipped(@Nullable String jar) {
		if (jar == null) {
			return "not asked for";
		}
		if (!tool("wrk")) {
			return "wrk is not installed (apt-get install wrk)";
		}
		if (!Files.isRegularFile(Path.of(jar))) {
			return "the sample-gateway jar " + jar + " was not built";
		}
		return null;
	}

	/**
	 * Runs the gateway cell at every connection count of {@link GatewayOverhead#CONNECTIONS}.
	 * @param server the Redis server
	 * @param settings how long and how often
	 * @param pinning where wrk, the gateway and the upstream run
	 * @param jar the gateway sample's jar
	 * @param log progress
	 * @return its runs
	 */
	static GatewayOverhead.Result gateway(OwnRedis server, Settings settings, CpuPinning pinning, String jar,
			Consumer<String> log) {
		return new GatewayOverhead(jar, server, pinning, WrkRun.WRK, settings.wrkThreads(),
				GatewayOverhead.CONNECTIONS, settings.httpSeconds(), GatewayOverhead.INSTANCES, log)
			.measure(settings.runs(), settings.httpWarmUps());
	}

	private static void memory(Results results, OwnRedis server, RedisAdmin redis, int clients) {
		for (Algorithm algorithm : Algorithm.values()) {
			String limit = MemoryPerKey.limit(redis.timeMillis());
			try (Contender ours = new OurLimiter(server, OurLimiter.policy(algorithm, limit))) {
				results.memory.put(algorithm.id(), MemoryPerKey.measure(redis, clients, ours::decide,
						OurLimiter.KEY_PREFIX + ":" + OurLimiter.POLICY + ":*"));
			}
		}
		try (Contender bucket4j = new Bucket4jLimiter(server, 100, Duration.ofHours(1))) {
			results.memory.put("Bucket4j", MemoryPerKey.measure(redis, clients, bucket4j::decide, "bucket4j:*"));
		}
		redis.flushAll();
	}

	static boolean tool(String name) {
		String path = Processes.firstLine(List.of("sh", "-c", "command -v " + name));
		return !path.isBlank() && !"unknown".equals(path);
	}

	static int freePort() {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new IllegalStateException("No free port", ex);
		}
	}

	private static void log(String message) {
		System.out.println("[benchmarks +" + (System.nanoTime() - STARTED) / 1_000_000_000 + " s] " + message);
	}

}
