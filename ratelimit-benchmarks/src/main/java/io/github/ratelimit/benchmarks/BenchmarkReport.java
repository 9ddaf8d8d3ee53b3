package io.github.ratelimit.benchmarks;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.function.IntFunction;

import io.github.ratelimit.core.Algorithm;

/**
 * Writes {@code docs/benchmarks.md} from one run's results.
 */
final class BenchmarkReport {

	static final String COMMAND = "ratelimit-benchmarks/run.sh";

	private final Results results;

	private final Environment environment;

	private final Duration warmUp;

	private final Duration measure;

	private final StringBuilder out = new StringBuilder();

	private final Set<MissNotes.Target> missed = EnumSet.noneOf(MissNotes.Target.class);

	BenchmarkReport(Results results, Environment environment, Duration warmUp, Duration measure) {
		this.results = results;
		this.environment = environment;
		this.warmUp = warmUp;
		this.measure = measure;
	}

	static Map<String, Map<Integer, Double>> chartSeries(Results results) {
		Map<String, Map<Integer, Double>> series = new LinkedHashMap<>();
		for (Algorithm algorithm : List.of(Algorithm.TOKEN_BUCKET, Algorithm.GCRA)) {
			Map<Integer, Double> points = new LinkedHashMap<>();
			results.ours.getOrDefault(algorithm, Map.of()).forEach((threads, t) -> points.put(threads, t.perSecond()));
			series.put("ours, " + algorithm.id(), points);
		}
		Map<Integer, Double> bucket4j = new LinkedHashMap<>();
		results.bucket4j.forEach((threads, t) -> bucket4j.put(threads, t.perSecond()));
		series.put("Bucket4j (Lettuce CAS), token bucket", bucket4j);
		if (!results.ceiling.isEmpty()) {
			series.put("ceiling: redis-benchmark EVALSHA token-bucket, -P 1",
					new LinkedHashMap<>(results.ceiling.get(Algorithm.TOKEN_BUCKET)));
		}
		return series;
	}

	String markdown() {
		line("# Benchmarks");
		line("");
		line("Written by `" + COMMAND + "` on " + this.environment.started() + " (UTC); do not edit by hand, run it "
				+ "again. Everything below was measured in that one run, side by side: on a shared machine the ratios "
				+ "mean more than the absolute numbers.");
		line("");
		environment();
		targets();
		decisions();
		redisCost();
		memory();
		denyCache();
		http();
		method();
		return this.out.toString();
	}

	private void environment() {
		Environment e = this.environment;
		line("## Machine and versions");
		line("");
		line("| what | value |");
		line("|---|---|");
		line("| date (UTC) | " + e.started() + " |");
		line("| command | `" + COMMAND + "` |");
		line("| CPUs (nproc) | " + e.cpus() + " |");
		line("| CPU model | " + e.cpuModel() + " |");
		line("| memory | " + e.memory() + " |");
		line("| load average (1, 5, 15 min) at start / at end | " + e.loadAtStart() + " / " + e.loadAtEnd() + " |");
		line("| JDK | " + e.jdk() + " |");
		line("| Redis server | " + e.redis() + " (the embedded-redis binary the tests use; no persistence) |");
		line("| Lettuce | " + e.lettuce() + " |");
		line("| Bucket4j | " + e.bucket4j() + " |");
		line("| redis-benchmark | " + e.redisBenchmark() + " |");
		line("| wrk | " + e.wrk() + " |");
		line("");
		line("Client, Redis and (for HTTP) the sample app and wrk all share the same " + e.cpus() + " CPUs.");
		line("");
	}

	private void targets() {
		line("## Targets of the issue against what was measured");
		line("");
		line("| target | measured | met? |");
		line("|---|---|---|");
		for (Algorithm algorithm : List.of(Algorithm.TOKEN_BUCKET, Algorithm.GCRA)) {
			double ours = ours(algorithm, 64);
			Double ceiling = this.results.ceiling.getOrDefault(algorithm, Map.of()).get(64);
			if (ceiling != null) {
				target(MissNotes.Target.CEILING,
						algorithm.id() + " at 64 threads >= 1.0x redis-benchmark EVALSHA -P 1 -c 64",
						ratio(ours / ceiling) + " (" + rate(ours) + " vs " + rate(ceiling) + " /s)", ours / ceiling,
						1.0);
			}
			else {
				line("| " + algorithm.id() + " at 64 threads >= 1.0x redis-benchmark | not measured: "
						+ this.results.ceilingSkipped + " | - |");
			}
			double bucket4j = this.results.bucket4j.get(64).perSecond();
			target(MissNotes.Target.BUCKET4J, algorithm.id() + " at 64 threads >= 1.5x Bucket4j", ratio(ours / bucket4j) + " (" + rate(ours)
					+ " vs " + rate(bucket4j) + " /s)", ours / bucket4j, 1.5);
		}
		HttpOverhead.Result http = this.results.http;
		if (http != null) {
			double ratio = http.meanRate(true) / http.meanRate(false);
			target(MissNotes.Target.HTTP_THROUGHPUT, "HTTP: limited path >= 0.8x the unlimited path's throughput", ratio(ratio), ratio, 0.8);
			double added = http.meanP99(true) - http.meanP99(false);
			targetBelow(MissNotes.Target.HTTP_LATENCY, "HTTP: p99 added < 1 ms", millis(added) + " ms", added, 1.0);
		}
		else {
			line("| HTTP targets | not measured: " + this.results.httpSkipped + " | - |");
		}
		double denied = this.results.denyCache.get(true).callsPerDenied();
		targetBelow(MissNotes.Target.DENY_CACHE, "deny cache on: <= 0.01 Redis calls per denied request", String.format(Locale.ROOT, "%.4f", denied),
				denied, 0.01);
		memoryTarget("gcra", 100);
		memoryTarget("fixed-window", 100);
		memoryTarget("token-bucket", 150);
		line("");
		line("A ratio target is missed by the shortfall shown in brackets; see [What the misses mean](#what-the-misses-mean) "
				+ "for why and what would close it.");
		line("");
	}

	private void memoryTarget(String algorithm, int bytes) {
		MemoryPerKey.Result memory = this.results.memory.get(algorithm);
		targetBelow(MissNotes.Target.MEMORY, "memory: " + algorithm + " <= " + bytes + " bytes per client key (MEMORY USAGE)",
				String.format(Locale.ROOT, "%.0f bytes", memory.memoryUsage()), memory.memoryUsage(), bytes);
	}

	private void target(MissNotes.Target id, String target, String measured, double value, double atLeast) {
		if (value < atLeast) {
			this.missed.add(id);
		}
		String met = (value >= atLeast) ? "yes" : String.format(Locale.ROOT, "**no** (%.0f%% short)",
				100 * (1 - value / atLeast));
		line("| " + target + " | " + measured + " | " + met + " |");
	}

	private void targetBelow(MissNotes.Target id, String target, String measured, double value, double atMost) {
		if (value > atMost) {
			this.missed.add(id);
		}
		String met = (value <= atMost) ? "yes" : String.format(Locale.ROOT, "**no** (%.0f%% over)",
				100 * (value / atMost - 1));
		line("| " + target + " | " + measured + " | " + met + " |");
	}

	private void decisions() {
		line("## Decisions per second");
		line("");
		line("Each cell: decisions per second over " + DecisionLoad.KEYS + " random client keys, limit `"
				+ OurLimiter.LIMIT + "` (never reached), after " + this.warmUp.toMillis() + " ms of warm-up, measured "
				+ "for " + this.measure.toMillis() + " ms. Ours and Bucket4j use one shared Lettuce connection for all "
				+ "threads; redis-benchmark uses as many connections as the column's threads, one command in flight on "
				+ "each (`-P 1`), running EVALSHA of the very same script with the same arguments.");
		line("");
		StringBuilder header = new StringBuilder("| contender |");
		StringBuilder rule = new StringBuilder("|---|");
		for (int threads : RunBenchmarks.THREADS) {
			header.append(' ').append(threads).append(threads == 1 ? " thread |" : " threads |");
			rule.append("---:|");
		}
		line(header.toString());
		line(rule.toString());
		for (Algorithm algorithm : Algorithm.values()) {
			row("ours, " + algorithm.id(), (threads) -> rate(ours(algorithm, threads)) + errors(algorithm, threads));
			if (this.results.ceiling.containsKey(algorithm)) {
				row("redis-benchmark EVALSHA " + algorithm.id(),
						(threads) -> rate(this.results.ceiling.get(algorithm).get(threads)));
				row("ours / redis-benchmark, " + algorithm.id(),
						(threads) -> ratio(ours(algorithm, threads) / this.results.ceiling.get(algorithm).get(threads)));
			}
		}
		row("Bucket4j (Lettuce, CAS)", (threads) -> rate(this.results.bucket4j.get(threads).perSecond()));
		row("ours token-bucket / Bucket4j", (threads) -> ratio(
				ours(Algorithm.TOKEN_BUCKET, threads) / this.results.bucket4j.get(threads).perSecond()));
		row("ours gcra / Bucket4j",
				(threads) -> ratio(ours(Algorithm.GCRA, threads) / this.results.bucket4j.get(threads).perSecond()));
		line("");
		if (this.results.ceilingSkipped != null) {
			line("redis-benchmark was not run: " + this.results.ceilingSkipped + ".");
			line("");
		}
		line("![decisions per second against threads](benchmarks-throughput.png)");
		line("");
	}

	private String errors(Algorithm algorithm, int threads) {
		long errors = this.results.ours.get(algorithm).get(threads).errors();
		return (errors > 0) ? " (" + errors + " errors)" : "";
	}

	private void redisCost() {
		line("## Redis time per decision");
		line("");
		line("`usec_per_call` of `cmdstat_evalsha` from `INFO commandstats` (statistics reset before each run): the "
				+ "time Redis' single thread spends inside one decision's script.");
		line("");
		StringBuilder header = new StringBuilder("| algorithm |");
		StringBuilder rule = new StringBuilder("|---|");
		for (int threads : RunBenchmarks.THREADS) {
			header.append(" ours, ").append(threads).append(" |");
			rule.append("---:|");
		}
		if (!this.results.ceilingUsecPerCall.isEmpty()) {
			header.append(" redis-benchmark, -c 64 |");
			rule.append("---:|");
		}
		line(header.toString());
		line(rule.toString());
		for (Algorithm algorithm : Algorithm.values()) {
			StringBuilder row = new StringBuilder("| " + algorithm.id() + " |");
			for (int threads : RunBenchmarks.THREADS) {
				row.append(' ').append(usec(this.results.ourUsecPerCall.get(algorithm).get(threads))).append(" |");
			}
			if (!this.results.ceilingUsecPerCall.isEmpty()) {
				row.append(' ').append(usec(this.results.ceilingUsecPerCall.get(algorithm).get(64))).append(" |");
			}
			line(row.toString());
		}
		line("");
	}

	private void memory() {
		line("## Memory per client key");
		line("");
		line(String.format(Locale.ROOT, "%,d", RunBenchmarks.MEMORY_CLIENTS) + " fresh clients (IPv4-shaped keys such as `10.0.3.7`) decide once each, with one limit `"
				+ MemoryPerKey.LIMIT + "` (Bucket4j: capacity 100 refilled per hour). "
				+ "`MEMORY USAGE <key> SAMPLES 0` averaged over their keys, and the growth of `used_memory` per client "
				+ "(which adds the keyspace's dictionary and expiry entries).");
		line("");
		line("| algorithm | example key | MEMORY USAGE (bytes) | used_memory growth per client (bytes) |");
		line("|---|---|---:|---:|");
		this.results.memory.forEach((name, memory) -> line("| " + name + " | `" + memory.exampleKey() + "` | "
				+ String.format(Locale.ROOT, "%.0f", memory.memoryUsage()) + " | "
				+ String.format(Locale.ROOT, "%.0f", memory.usedMemoryPerClient()) + " |"));
		line("");
	}

	private void denyCache() {
		line("## Deny cache");
		line("");
		line("`RateLimitEnforcer` (the path of the servlet filter and `@RateLimited`) on our Redis backend, policy "
				+ "`1/1h` token-bucket: 100 clients send 200 requests each, round-robin, so each is admitted once and "
				+ "then refused. EVALSHA calls counted by Redis (`INFO commandstats`); calls per denied request = "
				+ "(calls - admitted) / denied.");
		line("");
		line("| deny cache | admitted | denied | EVALSHA calls | Redis calls per denied request |");
		line("|---|---:|---:|---:|---:|");
		this.results.denyCache.forEach((on, result) -> line("| " + (on ? "on" : "off") + " | " + result.allowed()
				+ " | " + result.denied() + " | " + result.calls() + " | "
				+ String.format(Locale.ROOT, "%.4f", result.callsPerDenied()) + " |"));
		line("");
	}

	private void http() {
		line("## HTTP overhead");
		line("");
		HttpOverhead.Result http = this.results.http;
		if (http == null) {
			line("Not measured: " + this.results.httpSkipped + ".");
			line("");
			return;
		}
		line("The sample app jar (Tomcat, on 127.0.0.1, `-Xmx512m`, run with `--ratelimit.policies.hello.limits="
				+ HttpOverhead.LIMIT + "`) on the same Redis. `/api/hello` goes through the rate limit filter (policy "
				+ "`hello`, key `ip`, token-bucket, one Redis decision per request); `/api/unlimited` does not. "
				+ "`wrk -t2 -c16 -d5s --latency`, two warm-up runs of each path, then 3 interleaved rounds (the order "
				+ "alternates each round).");
		line("");
		line("| run | path | requests/s | p50 (ms) | p99 (ms) | non-2xx |");
		line("|---:|---|---:|---:|---:|---:|");
		int i = 1;
		for (HttpOverhead.Run run : http.runs()) {
			line("| " + i++ + " | " + (run.limited() ? "/api/hello (limited)" : "/api/unlimited") + " | "
					+ rate(run.requestsPerSecond()) + " | " + millis(run.p50Millis()) + " | " + millis(run.p99Millis())
					+ " | " + run.non2xx() + " |");
		}
		line("");
		line("| mean | requests/s | p50 (ms) | p99 (ms) |");
		line("|---|---:|---:|---:|");
		line("| unlimited | " + rate(http.meanRate(false)) + " | " + millis(http.meanP50(false)) + " | "
				+ millis(http.meanP99(false)) + " |");
		line("| limited | " + rate(http.meanRate(true)) + " | " + millis(http.meanP50(true)) + " | "
				+ millis(http.meanP99(true)) + " |");
		line("| limited / unlimited, added | " + ratio(http.meanRate(true) / http.meanRate(false)) + " | "
				+ signedMillis(http.meanP50(true) - http.meanP50(false)) + " | "
				+ signedMillis(http.meanP99(true) - http.meanP99(false)) + " |");
		line("");
	}

	private void method() {
		line("## Method");
		line("");
		line("- **Why a timed loop, not JMH.** Each decision is a network round trip of tens to hundreds of "
				+ "microseconds, far above what JMH protects against (dead-code elimination, nanosecond timer noise), "
				+ "and the question is throughput at a fixed number of client threads sharing one connection, measured "
				+ "in the same minute as redis-benchmark and Bucket4j on the same Redis. The loop (`DecisionLoad`) "
				+ "starts the threads, discards the warm-up, counts decisions over the measured interval and stops; "
				+ "a 16-thread warm-up run of the JIT precedes everything.");
		line("- The run order is interleaved by thread count: for each of 1, 16, 64 threads, every algorithm "
				+ "(ours, then redis-benchmark with the same script), then Bucket4j, so slow drifts of the machine's load "
				+ "hit all contenders alike.");
		line("- redis-benchmark: `redis-benchmark -n N -c C -P 1 -r 10000 --csv EVALSHA <sha> 1 "
				+ "ratelimit:bench-<algorithm>:{__rand_int__}:0 <arguments>`, the arguments our backend sends for one "
				+ "permit (token-bucket: `" + String.join(" ", OurLimiter.scriptArguments(Algorithm.TOKEN_BUCKET))
				+ "`), N sized from a 2,000-call "
				+ "calibration run to last about as long as the measured interval. The script is loaded with "
				+ "SCRIPT LOAD from the same resource our backend sends.");
		line("- Bucket4j: `Bucket4jLettuce.casBasedBuilder(connection)` (its Lettuce proxy manager, compare-and-swap), "
				+ "capacity 100,000 refilled greedily per day (the same limit), one `BucketProxy` per client built up front, "
				+ "`tryConsume(1)`.");
		line("- Ours: `RedisRateLimiterBackend` on a `LettuceConnectionFactory` (shared native connection, as Spring "
				+ "Boot configures it), decision timeout 5 s, `tryAcquire(client)`.");
		line("- Traffic goes only to 127.0.0.1; every run is bounded in time.");
		line("");
		line("## What the misses mean");
		line("");
		if (this.missed.isEmpty()) {
			line("Every target was met in this run.");
		}
		for (MissNotes.Target target : this.missed) {
			line("- " + target.note());
		}
		line("");
		line(MissNotes.CONTEXT);
	}

	private void row(String name, IntFunction<String> cell) {
		StringBuilder row = new StringBuilder("| " + name + " |");
		for (int threads : RunBenchmarks.THREADS) {
			row.append(' ').append(cell.apply(threads)).append(" |");
		}
		line(row.toString());
	}

	private double ours(Algorithm algorithm, int threads) {
		return this.results.ours.get(algorithm).get(threads).perSecond();
	}

	private static String rate(double perSecond) {
		return String.format(Locale.ROOT, "%,.0f", perSecond);
	}

	private static String ratio(double ratio) {
		return String.format(Locale.ROOT, "%.2fx", ratio);
	}

	private static String millis(double millis) {
		return String.format(Locale.ROOT, "%.2f", millis);
	}

	private static String signedMillis(double millis) {
		return String.format(Locale.ROOT, "%+.2f", millis);
	}

	private static String usec(Double usec) {
		return (usec != null) ? String.format(Locale.ROOT, "%.2f us", usec) : "-";
	}

	private void line(String text) {
		this.out.append(text).append('\n');
	}

}
