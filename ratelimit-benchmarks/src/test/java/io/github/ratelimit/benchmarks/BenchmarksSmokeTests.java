package io.github.ratelimit.benchmarks;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;

import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.test.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Proves the benchmark harness still works: every benchmark runs for a fraction of a second against the test Redis
 * and produces numbers, and the report and chart are written. Asserts no speed.
 */
class BenchmarksSmokeTests {

	private static final DecisionLoad LOAD = new DecisionLoad(Duration.ofMillis(50), Duration.ofMillis(200));

	private static TestRedis server;

	private static RedisAdmin redis;

	@BeforeAll
	static void connect() {
		server = TestRedis.get();
		redis = new RedisAdmin(server.host(), server.port());
	}

	@AfterAll
	static void disconnect() {
		redis.flushAll();
		redis.close();
	}

	@Test
	void everyBenchmarkProducesNumbersAndTheReportIsWritten(@TempDir Path docs) throws Exception {
		Results results = new Results();
		for (Algorithm algorithm : Algorithm.values()) {
			redis.resetStats();
			try (Contender ours = new OurLimiter(server.host(), server.port(), algorithm)) {
				for (int threads : RunBenchmarks.THREADS) {
					Throughput throughput = LOAD.run(ours, Math.min(threads, 4));
					assertThat(throughput.decisions()).isPositive();
					assertThat(throughput.errors()).isZero();
					Results.row(results.ours, algorithm).put(threads, throughput);
				}
			}
			double usecPerCall = redis.evalsha().usecPerCall();
			assertThat(usecPerCall).isPositive();
			RunBenchmarks.THREADS.forEach((threads) -> Results.row(results.ourUsecPerCall, algorithm).put(threads,
					usecPerCall));
		}
		try (Contender bucket4j = new Bucket4jLimiter(server.host(), server.port())) {
			for (int threads : RunBenchmarks.THREADS) {
				Throughput throughput = LOAD.run(bucket4j, Math.min(threads, 4));
				assertThat(throughput.decisions()).isPositive();
				results.bucket4j.put(threads, throughput);
			}
		}
		RunBenchmarks.memory(results, redis, server.port(), 100);
		assertThat(results.memory).hasSize(Algorithm.values().length + 1);
		assertThat(results.memory.values()).allSatisfy((memory) -> {
			assertThat(memory.keys()).isEqualTo(100);
			assertThat(memory.memoryUsage()).isPositive();
		});
		DenyCacheCalls.Result cached = DenyCacheCalls.measure(server.host(), server.port(), redis, true, 10, 20);
		DenyCacheCalls.Result uncached = DenyCacheCalls.measure(server.host(), server.port(), redis, false, 10, 20);
		assertThat(cached.allowed()).isEqualTo(10);
		assertThat(cached.denied()).isEqualTo(190);
		assertThat(cached.callsPerDenied()).isLessThan(uncached.callsPerDenied());
		assertThat(uncached.callsPerDenied()).isEqualTo(1.0);
		results.denyCache.put(true, cached);
		results.denyCache.put(false, uncached);
		results.ceilingSkipped = "not run by the smoke test";
		results.httpSkipped = "not run by the smoke test";
		Environment environment = new Environment(Instant.now(), "0", "0", 2, "cpu", "memory", "jdk",
				redis.version(), "lettuce", "bucket4j", "redis-benchmark", "wrk");
		String markdown = new BenchmarkReport(results, environment, Duration.ofMillis(50), Duration.ofMillis(200))
			.markdown();
		assertThat(markdown).contains("| ours, token-bucket |", "| Bucket4j (Lettuce, CAS) |", "| deny cache |");
		Path chart = docs.resolve("benchmarks-throughput.png");
		ThroughputChart.write(BenchmarkReport.chartSeries(results), chart);
		assertThat(Files.size(chart)).isPositive();
	}

	@Test
	void externalToolOutputIsParsed() {
		String wrk = """
				  Latency Distribution
				     50%  812.00us
				     75%    1.20ms
				     90%    2.00ms
				     99%    1.05s
				""";
		assertThat(HttpOverhead.percentile(wrk, "50%")).isEqualTo(0.812);
		assertThat(HttpOverhead.percentile(wrk, "99%")).isEqualTo(1050.0);
		assertThat(new RedisBenchmarkTool("127.0.0.1", 6379).command(Algorithm.GCRA, "ratelimit:bench-gcra", "abc", 64,
				1000))
			.containsSequence("-c", "64", "-P", "1", "-r", "10000")
			.containsSequence("ratelimit:bench-gcra:{__rand_int__}:0", "1", "1", "864000", "1", "86400000000");
	}

}
