package io.github.ratelimit.benchmarks;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.redis.RedisRateLimiterBackend;
import redis.embedded.RedisServer;

/**
 * Runs every benchmark against one Redis server and writes {@code benchmarks.md} and {@code benchmarks-throughput.png}.
 * <p>
 * Arguments: {@code <docs directory> <sample-app jar>}. System properties {@code benchmark.warmup} and
 * {@code benchmark.measure} (seconds, default 1 and 3) size each decision run.
 */
public final class RunBenchmarks {

	static final List<Integer> THREADS = List.of(1, 16, 64);

	static final String HOST = "127.0.0.1";

	/** Fresh clients whose keys the memory benchmark measures. */
	static final int MEMORY_CLIENTS = 1_000;

	private RunBenchmarks() {
	}

	public static void main(String[] args) throws Exception {
		if (args.length != 2) {
			throw new IllegalArgumentException("Usage: RunBenchmarks <docs directory> <sample-app jar>");
		}
		Path docs = Path.of(args[0]);
		String sampleJar = args[1];
		Duration warmUp = Duration.ofMillis(Math.round(1000 * Double.parseDouble(System.getProperty("benchmark.warmup", "1"))));
		Duration measure = Duration.ofMillis(Math.round(1000 * Double.parseDouble(System.getProperty("benchmark.measure", "3"))));
		int port = freePort();
		RedisServer server = RedisServer.newRedisServer()
			.port(port)
			.bind(HOST)
			.setting("save \"\"")
			.setting("appendonly no")
			.onShutdownForceStop(true)
			.build();
		server.start();
		Environment environment = Environment.now();
		try (RedisAdmin redis = new RedisAdmin(HOST, port)) {
			Results results = new Results();
			String redisVersion = redis.version();
			DecisionLoad load = new DecisionLoad(warmUp, measure);
			log("Redis " + redisVersion + " on port " + port + "; JIT warm-up");
			try (Contender warm = new OurLimiter(HOST, port, Algorithm.TOKEN_BUCKET)) {
				load.run(warm, 16);
			}
			decisions(results, redis, load, port, measure);
			log("memory per key");
			memory(results, redis, port, MEMORY_CLIENTS);
			log("deny cache");
			results.denyCache.put(true, DenyCacheCalls.measure(HOST, port, redis, true, 100, 200));
			results.denyCache.put(false, DenyCacheCalls.measure(HOST, port, redis, false, 100, 200));
			redis.flushAll();
			http(results, sampleJar, port);
			environment = environment.finished(redisVersion);
			Files.createDirectories(docs);
			ThroughputChart.write(BenchmarkReport.chartSeries(results), docs.resolve("benchmarks-throughput.png"));
			Files.writeString(docs.resolve("benchmarks.md"), new BenchmarkReport(results, environment, warmUp, measure)
				.markdown());
			log("wrote " + docs.resolve("benchmarks.md") + " and " + docs.resolve("benchmarks-throughput.png"));
		}
		finally {
			server.stop();
		}
	}

	private static void decisions(Results results, RedisAdmin redis, DecisionLoad load, int port, Duration measure) {
		RedisBenchmarkTool ceiling = tool("redis-benchmark") ? new RedisBenchmarkTool(HOST, port) : null;
		if (ceiling == null) {
			results.ceilingSkipped = "redis-benchmark is not installed (apt-get install redis-tools)";
		}
		for (int threads : THREADS) {
			for (Algorithm algorithm : Algorithm.values()) {
				log(algorithm.id() + ", " + threads + " threads");
				redis.resetStats();
				try (Contender ours = new OurLimiter(HOST, port, algorithm)) {
					Results.row(results.ours, algorithm).put(threads, load.run(ours, threads));
				}
				Results.row(results.ourUsecPerCall, algorithm).put(threads, redis.evalsha().usecPerCall());
				if (ceiling != null) {
					String sha = redis.scriptLoad(RedisRateLimiterBackend.script(algorithm).getScriptAsString());
					redis.resetStats();
					Results.row(results.ceiling, algorithm).put(threads, ceiling.run(algorithm, "ratelimit:bench-" + algorithm.id(),
							sha, threads, measure.toMillis() / 1000.0));
					Results.row(results.ceilingUsecPerCall, algorithm).put(threads, redis.evalsha().usecPerCall());
				}
			}
			log("Bucket4j, " + threads + " threads");
			try (Contender bucket4j = new Bucket4jLimiter(HOST, port)) {
				results.bucket4j.put(threads, load.run(bucket4j, threads));
			}
		}
	}

	static void memory(Results results, RedisAdmin redis, int port, int clients) {
		for (Algorithm algorithm : Algorithm.values()) {
			try (Contender ours = new OurLimiter(HOST, port, algorithm, MemoryPerKey.LIMIT)) {
				results.memory.put(algorithm.id(), MemoryPerKey.measure(redis, clients, ours::decide, "ratelimit:api:*"));
			}
		}
		try (Contender bucket4j = new Bucket4jLimiter(HOST, port, 100, Duration.ofHours(1))) {
			results.memory.put("Bucket4j", MemoryPerKey.measure(redis, clients, bucket4j::decide, "bucket4j:*"));
		}
		redis.flushAll();
	}

	private static void http(Results results, String sampleJar, int port) {
		if (!tool("wrk")) {
			results.httpSkipped = "wrk is not installed (apt-get install wrk)";
			return;
		}
		if (!Files.isRegularFile(Path.of(sampleJar))) {
			results.httpSkipped = "the sample app jar " + sampleJar + " was not built";
			return;
		}
		log("HTTP: sample app under wrk");
		results.http = new HttpOverhead(sampleJar, port, 2, 16, 5).measure(3);
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
		System.out.println("[benchmarks] " + message);
	}

}
