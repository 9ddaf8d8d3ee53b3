package io.github.ratelimit.benchmarks;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.DoubleFunction;
import java.util.function.IntFunction;
import java.util.function.ToDoubleFunction;

import io.github.ratelimit.benchmarks.DecisionBenchmark.Cell;
import io.github.ratelimit.benchmarks.DecisionBenchmark.Decisions;
import io.github.ratelimit.benchmarks.DecisionBenchmark.Kind;
import io.github.ratelimit.benchmarks.HttpOverhead.SampleApp;
import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.core.lease.LeaseSettings;
import io.github.ratelimit.core.lease.LeasedRateLimiter;
import io.github.ratelimit.redis.OurScript;

/**
 * Writes {@code docs/benchmarks.md} from one run's results.
 */
final class BenchmarkReport {

	/** The targets of usec_per_call, microseconds. */
	private static final Map<Algorithm, Double> USEC_TARGETS = Map.of(Algorithm.TOKEN_BUCKET, 8.0, Algorithm.GCRA,
			7.0, Algorithm.FIXED_WINDOW, 5.0);

	private static final double PLAIN_TARGET = 0.9;

	private static final double HTTP_TARGET = 0.65;

	private static final double LEASED_HTTP_TARGET = 0.95;

	private static final double LEASED_WEBFLUX_TARGET = 0.97;

	/** A leased request's app CPU at most this times an unlimited one's. */
	private static final double LEASED_CPU_TARGET = 1.10;

	/** A leased hot key's client CPU per decision at 64 threads at most this times its 1-thread figure. */
	private static final double LEASED_THREADS_CPU_TARGET = 1.5;

	private static final List<LeaseDecisions.Mode> LEASED_MODES = List.of(LeaseDecisions.Mode.LEASED,
			LeaseDecisions.Mode.LEASED_LARGE);

	private static final double PLANS_TARGET = 0.95;

	private final Results results;

	private final Decisions decisions;

	private final Environment environment;

	private final Settings settings;

	private final MissNotes notes;

	private final List<Target> missed = new ArrayList<>();

	private final StringBuilder out = new StringBuilder();

	BenchmarkReport(Results results, Environment environment, Settings settings) {
		this.results = results;
		this.decisions = results.decisions;
		this.environment = environment;
		this.settings = settings;
		this.notes = new MissNotes(results);
	}

	static Map<String, Map<Integer, Double>> chartSeries(Results results) {
		Decisions decisions = results.decisions;
		Map<String, Map<Integer, Double>> series = new LinkedHashMap<>();
		series.put("ours, token-bucket", points(decisions, Kind.OURS, Algorithm.TOKEN_BUCKET));
		series.put("plain Lettuce, our token-bucket script", points(decisions, Kind.PLAIN_LETTUCE,
				Algorithm.TOKEN_BUCKET));
		series.put("Bucket4j (Lettuce CAS), token bucket", points(decisions, Kind.BUCKET4J, Algorithm.TOKEN_BUCKET));
		if (decisions.has(Kind.REDIS_BENCHMARK)) {
			series.put("redis-benchmark, our token-bucket script, -P 1", points(decisions, Kind.REDIS_BENCHMARK,
					Algorithm.TOKEN_BUCKET));
		}
		series.put("ours, gcra", points(decisions, Kind.OURS, Algorithm.GCRA));
		return series;
	}

	private static Map<Integer, Double> points(Decisions decisions, Kind kind, Algorithm algorithm) {
		Map<Integer, Double> points = new LinkedHashMap<>();
		decisions.threads().forEach((threads) -> points.put(threads, decisions.rate(kind, algorithm, threads).median()));
		return points;
	}

	String markdown() {
		line("# Benchmarks");
		line("");
		line("Written by `" + this.environment.command() + "` on " + this.environment.started() + " (UTC); do not edit "
				+ "by hand, run it again. Every number is the **median of " + this.settings.runs() + " runs** with the "
				+ "lowest and highest run in brackets; each run measures the contenders side by side, one right after "
				+ "the other, and ratios are taken within a run before their median.");
		line("");
		machine();
		targets();
		decisionsPerSecond();
		clientCost();
		redisTime();
		memory();
		denyCache();
		plans();
		leases();
		jmh();
		http();
		gateway();
		waiting();
		method();
		misses();
		return this.out.toString();
	}

	private void machine() {
		Environment e = this.environment;
		line("## Machine and setup");
		line("");
		line("| what | value |");
		line("|---|---|");
		line("| date (UTC) | " + e.started() + " |");
		line("| command | `" + e.command() + "` |");
		line("| CPUs | " + e.cpus() + " (" + e.cpuModel() + "); the benchmark JVM may use " + e.jvmCpus() + " |");
		line("| memory | " + e.memory() + " |");
		line("| load average (1, 5, 15 min): when the command started / when measuring started / at the end | "
				+ e.loadBeforeBuild() + " / " + e.loadAtStart() + " / " + e.loadAtEnd() + " |");
		line("| CPU pinning | " + e.pinning() + " |");
		line("| Redis server | " + e.redisServer() + ", reporting " + e.redis() + "; started by the benchmark on a free "
				+ "port of 127.0.0.1, persistence off (`--save \"\" --appendonly no`) |");
		line("| JDK | " + e.jdk() + ", GC " + e.gc() + " |");
		line("| Lettuce | " + e.lettuce() + " |");
		line("| Bucket4j | " + e.bucket4j() + " |");
		line("| redis-benchmark | " + e.redisBenchmark() + " |");
		line("| wrk | " + e.wrk() + " |");
		line("");
	}

	private void targets() {
		line("## Targets");
		line("");
		line("**Ours ≥ " + Spread.ratio(PLAIN_TARGET) + " plain Lettuce sending our very script** (decisions per "
				+ "second, ours / plain Lettuce; the same ratio per client CPU-second, which other processes cannot "
				+ "skew, is under [Where a decision's time goes](#where-a-decisions-time-goes)):");
		line("");
		tableHeader("algorithm");
		for (Algorithm algorithm : Algorithm.values()) {
			row(algorithm.id(), (threads) -> {
				Spread ratio = ratio(Kind.OURS, Kind.PLAIN_LETTUCE, algorithm, threads);
				return cell(new Target("ours ≥ " + Spread.ratio(PLAIN_TARGET) + " plain Lettuce, " + algorithm.id()
						+ ", " + MissNotes.threads(threads), ratio, Spread::ratio, PLAIN_TARGET, true,
						() -> this.notes.oursVsPlain(algorithm, threads, ratio, PLAIN_TARGET)));
			});
		}
		line("");
		line("**Ours ≥ 1.7x Bucket4j at 1 thread, ≥ 1.5x at 16 and 64 threads** (token bucket, the algorithm "
				+ "Bucket4j implements; decisions per second, ours / Bucket4j):");
		line("");
		tableHeader("");
		row("ours token-bucket / Bucket4j", (threads) -> {
			double target = (threads == 1) ? 1.7 : 1.5;
			Spread ratio = ratio(Kind.OURS, Kind.BUCKET4J, Algorithm.TOKEN_BUCKET, threads);
			return cell(new Target("ours ≥ " + Spread.ratio(target) + " Bucket4j, " + MissNotes.threads(threads), ratio,
					Spread::ratio, target, true, () -> this.notes.oursVsBucket4j(threads, ratio, target)));
		});
		line("");
		line("**Plans, overrides and observed decisions ≥ " + Spread.ratio(PLANS_TARGET) + " a plain policy** (decisions per second "
				+ "through the enforcer, the filter's path, each path / the plain policy; see "
				+ "[Plans and overrides](#plans-and-overrides)):");
		line("");
		tableHeader("");
		for (PlanDecisions.Path path : List.of(PlanDecisions.Path.PLANS, PlanDecisions.Path.OVERRIDE,
				PlanDecisions.Path.OBSERVED)) {
			row(path.label() + " / plain policy", (threads) -> {
				Spread ratio = this.results.plans.ratio(path, threads);
				return cell(new Target(path.label() + " ≥ " + Spread.ratio(PLANS_TARGET) + " plain policy, "
						+ MissNotes.threads(threads), ratio, Spread::ratio, PLANS_TARGET, true,
						() -> this.notes.planPath(path, threads, ratio, PLANS_TARGET)));
			});
		}
		line("");
		line("| target | measured | met |");
		line("|---|---|---|");
		HttpOverhead.Result http = this.results.http;
		if (http != null) {
			for (SampleApp app : SampleApp.values()) {
				double target = httpTarget(app);
				Spread ratio = http.limitedOverUnlimited(app);
				targetRow(new Target("HTTP: limited ≥ " + Spread.ratio(target) + " unlimited requests/s, "
						+ targetName(app), ratio, Spread::ratio, target, true,
						() -> this.notes.http(app, ratio, target)));
			}
			for (SampleApp app : List.of(SampleApp.SERVLET_LEASED)) {
				Spread cpu = http.cpuLimitedOverUnlimited(app);
				targetRow(new Target("HTTP: app CPU per request, limited ≤ " + Spread.ratio(LEASED_CPU_TARGET)
						+ " unlimited, " + targetName(app), cpu, Spread::ratio, LEASED_CPU_TARGET, false,
						() -> this.notes.httpCpu(app, cpu, LEASED_CPU_TARGET)));
			}
		}
		else {
			line("| HTTP: limited ≥ " + Spread.ratio(HTTP_TARGET) + " unlimited (leased: ≥ "
					+ Spread.ratio(LEASED_HTTP_TARGET) + ") | not measured: " + this.results.httpSkipped + " | - |");
		}
		GatewayOverhead.Result gateway = this.results.gateway;
		if (gateway != null) {
			new GatewayReport(gateway, this.settings).targets().forEach(this::targetRow);
		}
		else {
			line("| gateway: ours ≥ the gateway's `RedisRateLimiter` requests/s; exact ≥ "
					+ Spread.ratio(GatewayReport.EXACT_TARGET) + " unlimited, leased ≥ "
					+ Spread.ratio(GatewayReport.LEASED_TARGET) + " | not measured: " + this.results.gatewaySkipped
					+ " | - |");
		}
		WaitingPermits.Result waiting = this.results.waiting;
		if (waiting != null) {
			new WaitingReport(waiting).targets().forEach(this::targetRow);
		}
		else {
			line("| waiting: ours ≥ " + WaitingReport.percent(WaitingReport.UTILISATION_TARGET) + " of the rate, "
					+ "never over it, fewer Redis calls per permit than Redisson | not measured | - |");
		}
		for (Algorithm algorithm : List.of(Algorithm.TOKEN_BUCKET, Algorithm.GCRA, Algorithm.FIXED_WINDOW)) {
			double target = USEC_TARGETS.get(algorithm);
			Spread usec = this.decisions.usecPerScriptCall(Kind.OURS, algorithm);
			targetRow(new Target("Redis time per decision (`usec_per_call`), " + algorithm.id() + " ≤ "
					+ String.format(Locale.ROOT, "%.0f µs", target), usec, MissNotes::micros, target, false,
					() -> this.notes.usecPerCall(algorithm, usec, target)));
		}
		leaseTargets();
		jmhTargets();
		memoryTarget("gcra", 100);
		memoryTarget("fixed-window", 100);
		memoryTarget("token-bucket", 150);
		DenyCacheCalls.Result cached = this.results.denyCache.get(true);
		targetRow(new Target("deny cache on: ≤ 0.01 Redis calls per denied request (earlier issue)",
				Spread.of(cached.callsPerDenied()), (value) -> String.format(Locale.ROOT, "%.4f", value), 0.01, false,
				() -> this.notes.denyCache(cached, 0.01)));
		line("");
		line(this.missed.isEmpty() ? "Every target was met."
				: this.missed.size() + " targets missed: see [What the misses mean](#what-the-misses-mean).");
		line("");
	}

	private static String targetName(SampleApp app) {
		return switch (app) {
			case SERVLET -> "servlet sample app as shipped (Boot observes Lettuce commands)";
			case SERVLET_UNOBSERVED -> "servlet sample app, Boot's Lettuce observation off";
			case WEBFLUX -> "WebFlux sample app as shipped (Boot observes Lettuce commands)";
			case SERVLET_LEASED -> "servlet sample app as shipped, policy `hello` leased (issue 31)";
			case WEBFLUX_LEASED -> "WebFlux sample app as shipped, policy `hello` leased (issue 31)";
		};
	}

	private static double httpTarget(SampleApp app) {
		if (!app.leased()) {
			return HTTP_TARGET;
		}
		return app.webflux() ? LEASED_WEBFLUX_TARGET : LEASED_HTTP_TARGET;
	}

	/**
	 * The leased decisions' targets (issue 31): a hot key's client CPU per decision holds with threads, and over many
	 * keys leasing is no slower than exact.
	 */
	private void leaseTargets() {
		LeaseDecisions.Result leases = this.results.leases;
		List<Integer> threads = leases.threads();
		int most = threads.get(threads.size() - 1);
		for (LeaseDecisions.Mode mode : LEASED_MODES) {
			for (Algorithm algorithm : LeaseDecisions.ALGORITHMS) {
				LeaseDecisions.Cell one = leaseCell(algorithm, LeaseDecisions.Keys.HOT, mode, 1);
				LeaseDecisions.Cell many = leaseCell(algorithm, LeaseDecisions.Keys.HOT, mode, most);
				double oneCpu = leases.spread(one, Measurement::clientCpuMicrosPerDecision).median();
				double manyCpu = leases.spread(many, Measurement::clientCpuMicrosPerDecision).median();
				Spread growth = Spread.of(manyCpu / oneCpu);
				targetRow(new Target(mode.label() + ", one hot key, " + algorithm.id() + ": client CPU per decision at "
						+ most + " threads ≤ " + Spread.ratio(LEASED_THREADS_CPU_TARGET) + " its 1-thread figure",
						growth, Spread::ratio, LEASED_THREADS_CPU_TARGET, false, () -> this.notes.leaseThreads(mode,
								algorithm, oneCpu, manyCpu, most, LEASED_THREADS_CPU_TARGET)));
			}
		}
		for (Algorithm algorithm : LeaseDecisions.ALGORITHMS) {
			for (int count : threads) {
				LeaseDecisions.Cell cell = leaseCell(algorithm, LeaseDecisions.Keys.SPREAD, LeaseDecisions.Mode.LEASED,
						count);
				Spread ratio = leases.leasedOverExact(cell);
				targetRow(new Target("leased ≥ 1.00x exact decisions/s, " + algorithm.id() + ", "
						+ LeaseDecisions.Keys.SPREAD.label() + ", " + MissNotes.threads(count), ratio, Spread::ratio,
						1.0, true, () -> this.notes.leaseSpread(cell, ratio)));
			}
		}
	}

	private void memoryTarget(String algorithm, int bytes) {
		MemoryPerKey.Result memory = this.results.memory.get(algorithm);
		targetRow(new Target("memory: " + algorithm + " ≤ " + bytes + " bytes per client key, MEMORY USAGE "
				+ "(earlier issue)", Spread.of(memory.memoryUsage()),
				(value) -> String.format(Locale.ROOT, "%.0f bytes", value), bytes, false,
				() -> this.notes.memory(algorithm, memory, bytes)));
	}

	private String cell(Target target) {
		remember(target);
		return target.measuredText() + " " + target.verdict();
	}

	private void targetRow(Target target) {
		remember(target);
		line("| " + target.name() + " | " + target.measuredText() + " | " + target.verdict() + " |");
	}

	private void remember(Target target) {
		if (!target.met()) {
			this.missed.add(target);
		}
	}

	private void decisionsPerSecond() {
		line("## Decisions per second");
		line("");
		line("Each cell: decisions per second over " + String.format(Locale.ROOT, "%,d", DecisionLoad.KEYS)
				+ " random client keys, limit `" + OurLimiter.LIMIT + "` (`" + OurLimiter.limit(Algorithm.SLIDING_WINDOW)
				+ "` for sliding-window and `" + OurLimiter.limit(Algorithm.SLIDING_LOG)
				+ "` for sliding-log, their bounds; never reached"
				+ (this.settings.prime() ? "; every key already written once before the runs" : "") + "), "
				+ this.settings.warmUp().toMillis() + " ms of warm-up then "
				+ this.settings.measure().toMillis() + " ms measured. Ours, plain Lettuce and Bucket4j share one "
				+ "Lettuce connection among all threads; redis-benchmark opens as many connections as the column's "
				+ "threads, one command in flight on each (`-P 1`).");
		line("");
		tableHeader("contender");
		for (Algorithm algorithm : Algorithm.values()) {
			for (Kind kind : List.of(Kind.OURS, Kind.PLAIN_LETTUCE, Kind.REDIS_BENCHMARK)) {
				if (this.decisions.has(kind)) {
					row(kind.label() + ", " + algorithm.id(), (threads) -> rate(kind, algorithm, threads)
							+ errors(kind, algorithm, threads));
				}
			}
		}
		row(Kind.BUCKET4J.label(), (threads) -> rate(Kind.BUCKET4J, Algorithm.TOKEN_BUCKET, threads));
		line("");
		line("Ratios, run by run, then the median:");
		line("");
		tableHeader("ratio");
		for (Algorithm algorithm : Algorithm.values()) {
			row("ours / plain Lettuce, " + algorithm.id(),
					(threads) -> ratio(Kind.OURS, Kind.PLAIN_LETTUCE, algorithm, threads).format(Spread::ratio));
		}
		if (this.decisions.has(Kind.REDIS_BENCHMARK)) {
			for (Algorithm algorithm : Algorithm.values()) {
				row("ours / redis-benchmark, " + algorithm.id(),
						(threads) -> ratio(Kind.OURS, Kind.REDIS_BENCHMARK, algorithm, threads).format(Spread::ratio));
			}
		}
		for (Algorithm algorithm : List.of(Algorithm.TOKEN_BUCKET, Algorithm.GCRA)) {
			row("ours " + algorithm.id() + " / Bucket4j", (threads) -> this.decisions
				.ratio(new Cell(Kind.OURS, algorithm, threads), new Cell(Kind.BUCKET4J, Algorithm.TOKEN_BUCKET, threads))
				.format(Spread::ratio));
		}
		row("plain Lettuce token-bucket / Bucket4j", (threads) -> ratio(Kind.PLAIN_LETTUCE, Kind.BUCKET4J,
				Algorithm.TOKEN_BUCKET, threads).format(Spread::ratio));
		line("");
		if (this.results.redisBenchmarkSkipped != null) {
			line("redis-benchmark was not run: " + this.results.redisBenchmarkSkipped + ".");
			line("");
		}
		line("![decisions per second against threads, medians](benchmarks-throughput.png)");
		line("");
	}

	private void clientCost() {
		line("## Where a decision's time goes");
		line("");
		line("Measured over the same intervals as the rates above: the benchmark JVM's CPU time (all its threads: "
				+ "callers, Lettuce's event loop, GC) per decision and as a share of one CPU; Redis' CPU time "
				+ "(`INFO cpu`, user + system: reading, parsing, the script, replying) per decision and as a share of "
				+ "one CPU; and how busy each of the two pinned CPUs was in all (`/proc/stat`, every process on it, "
				+ "ours or not: the difference is what other processes on the machine took). A CPU busy 90% or more "
				+ "marks the bottleneck of that cell.");
		line("");
		line("Token bucket:");
		line("");
		line("| threads | contender | decisions/s | client CPU per decision | JVM's share of a CPU | clients' CPU busy, "
				+ "all processes | Redis CPU per decision | Redis' share of a CPU | Redis' CPU busy, all processes |");
		line("|---:|---|---:|---:|---:|---:|---:|---:|---:|");
		for (int threads : this.decisions.threads()) {
			for (Kind kind : Kind.values()) {
				if (!this.decisions.has(kind)) {
					continue;
				}
				line("| " + threads + " | " + kind.label() + " | " + rate(kind, Algorithm.TOKEN_BUCKET, threads) + " | "
						+ spread(kind, Algorithm.TOKEN_BUCKET, threads, Measurement::clientCpuMicrosPerDecision,
								MissNotes::micros)
						+ " | " + spread(kind, Algorithm.TOKEN_BUCKET, threads, Measurement::clientCpuShare,
								MissNotes::percent)
						+ " | " + spread(kind, Algorithm.TOKEN_BUCKET, threads, Measurement::clientCpuBusy,
								MissNotes::percent)
						+ " | " + spread(kind, Algorithm.TOKEN_BUCKET, threads, Measurement::redisCpuMicrosPerDecision,
								MissNotes::micros)
						+ " | " + spread(kind, Algorithm.TOKEN_BUCKET, threads, Measurement::redisCpuShare,
								MissNotes::percent)
						+ " | " + spread(kind, Algorithm.TOKEN_BUCKET, threads, Measurement::redisCpuBusy,
								MissNotes::percent)
						+ " |");
			}
		}
		line("");
		line("Decisions per client CPU-second, ours / plain Lettuce and ours / Bucket4j, run by run, then the median: "
				+ "the ratio the rates would show had each contender had the same CPU time, whatever other processes "
				+ "took from either (above 1: ours spends less client CPU per decision):");
		line("");
		tableHeader("ratio");
		for (Algorithm algorithm : Algorithm.values()) {
			row("ours / plain Lettuce, " + algorithm.id(), (threads) -> this.decisions
				.cpuRatio(new Cell(Kind.OURS, algorithm, threads), new Cell(Kind.PLAIN_LETTUCE, algorithm, threads))
				.format(Spread::ratio));
		}
		row("ours token-bucket / Bucket4j", (threads) -> this.decisions
			.cpuRatio(new Cell(Kind.OURS, Algorithm.TOKEN_BUCKET, threads),
					new Cell(Kind.BUCKET4J, Algorithm.TOKEN_BUCKET, threads))
			.format(Spread::ratio));
		line("");
		line("Client CPU per decision, every algorithm (ours / plain Lettuce, medians):");
		line("");
		tableHeader("algorithm");
		for (Algorithm algorithm : Algorithm.values()) {
			row(algorithm.id(), (threads) -> MissNotes.micros(CellCost.of(this.decisions, Kind.OURS, algorithm, threads)
				.clientCpuMicros()) + " / "
					+ MissNotes.micros(CellCost.of(this.decisions, Kind.PLAIN_LETTUCE, algorithm, threads)
						.clientCpuMicros()));
		}
		line("");
	}

	private void redisTime() {
		line("## Redis time per decision");
		line("");
		line("`usec_per_call` of EVALSHA from `INFO commandstats` over the measured intervals: the time Redis' "
				+ "single thread spends inside one decision's script. Per algorithm, all thread counts of a run "
				+ "together, then the median of the runs. Redis also counts the commands a script calls under their "
				+ "own names; the rest of a call is the Lua interpreter running the script and Redis' scripting "
				+ "machinery around it.");
		line("");
		boolean tool = this.decisions.has(Kind.REDIS_BENCHMARK);
		line("| algorithm | ours | plain Lettuce | " + (tool ? "redis-benchmark | " : "")
				+ "commands the script calls (ours, per decision) | the rest |");
		line("|---|---:|---:|" + (tool ? "---:|" : "") + "---|---:|");
		for (Algorithm algorithm : Algorithm.values()) {
			Spread ours = this.decisions.usecPerScriptCall(Kind.OURS, algorithm);
			Map<String, Spread> commands = this.decisions.usecByCommand(Kind.OURS, algorithm);
			List<String> parts = new ArrayList<>();
			commands.forEach((name, spread) -> parts.add(name.toUpperCase(Locale.ROOT) + " "
					+ MissNotes.micros(spread.median())));
			double lua = ours.median() - commands.values().stream().mapToDouble(Spread::median).sum();
			line("| " + algorithm.id() + " | " + ours.format(MissNotes::micros) + " | "
					+ this.decisions.usecPerScriptCall(Kind.PLAIN_LETTUCE, algorithm).format(MissNotes::micros) + " | "
					+ (tool ? this.decisions.usecPerScriptCall(Kind.REDIS_BENCHMARK, algorithm).format(MissNotes::micros)
							+ " | " : "")
					+ String.join(", ", parts) + " | " + MissNotes.micros(lua) + " |");
		}
		line("");
	}

	private void memory() {
		line("## Memory per client key");
		line("");
		line(String.format(Locale.ROOT, "%,d", this.settings.memoryClients()) + " fresh clients (IPv4-shaped keys "
				+ "such as `10.0.3.7`) decide once each, with one limit of " + MemoryPerKey.LIMIT + " (a period of about an "
				+ "hour whose window has just begun, so that no key ends before it is measured; Bucket4j: "
				+ "capacity 100 refilled per hour). `MEMORY USAGE <key> SAMPLES 0` averaged over their keys, and the "
				+ "growth of `used_memory` per client (which adds the keyspace's dictionary and expiry entries).");
		line("");
		line("| algorithm | example key | MEMORY USAGE (bytes) | used_memory growth per client (bytes) |");
		line("|---|---|---:|---:|");
		this.results.memory.forEach((name, memory) -> line("| " + name + " | `" + memory.exampleKey() + "` | "
				+ String.format(Locale.ROOT, "%.0f", memory.memoryUsage()) + " | "
				+ String.format(Locale.ROOT, "%.0f", memory.usedMemoryPerClient()) + " |"));
		line("");
	}

	/**
	 * The in-process decision cells on JMH, with bytes allocated per decision.
	 */
	private void jmh() {
		JmhDecisions.Measured jmh = this.results.jmh;
		if (jmh == null) {
			return;
		}
		line("## In-process decisions on JMH");
		line("");
		line("The in-process decision cells on [JMH](https://github.com/openjdk/jmh) 1.37 (`DecisionsJmh`, run by "
				+ "`JmhDecisions`): throughput mode, " + this.settings.jmhForks() + " fork per benchmark and thread "
				+ "count (pinned as this JVM), 2 warm-up and 3 measured iterations of "
				+ Math.max(100, this.settings.measure().toMillis()) + " ms, JMH's GC profiler giving the bytes "
				+ "allocated per decision (`gc.alloc.rate.norm`, all threads' allocation over all operations). One "
				+ "hot key, every decision admitted. exact: our Redis backend's token bucket, one script call per "
				+ "decision on one shared Lettuce connection; plain Lettuce: the same script sent by plain Lettuce "
				+ "(the floor); leased: `LeasedRateLimiter` (batch 100, adaptive, max-age 1 s) over that backend, "
				+ "`tryAcquire`; leased, `tryFromLease`: the enforcer's first step, renewing by `tryAcquire` when it "
				+ "answers `null`; in-memory: the in-memory backend's token bucket; deny cache: `DenyCache.find` for a "
				+ "client it remembers as refused; the servlet filter's chain, leased: one request's policy (key `ip`, "
				+ "leased in batches of up to 100,000 so that renewals do not bound the thread) through "
				+ "`RateLimitChain.await` on an enforcer wired as the starter wires it, and its headers written: the "
				+ "rate limit's own work per request, without HTTP (one operation is one request). JMH's ± is its 99.9% confidence half-interval over the iterations; "
				+ "the other sections' medians of several runs are the figures to compare across cells.");
		line("");
		StringBuilder header = new StringBuilder("| benchmark |");
		StringBuilder rule = new StringBuilder("|---|");
		for (int threads : JmhDecisions.THREADS) {
			header.append(" decisions/s, ").append(MissNotes.threads(threads)).append(" | bytes per decision, ")
				.append(MissNotes.threads(threads)).append(" |");
			rule.append("---:|---:|");
		}
		line(header.toString());
		line(rule.toString());
		for (String benchmark : JmhDecisions.BENCHMARKS) {
			StringBuilder row = new StringBuilder("| " + JmhDecisions.label(benchmark) + " |");
			for (int threads : JmhDecisions.THREADS) {
				JmhDecisions.Cell cell = jmh.of(benchmark, threads);
				row.append(' ').append(String.format(Locale.ROOT, "%,.0f ± %,.0f", cell.perSecond(), cell.error()))
					.append(" | ").append(JmhDecisions.Measured.bytes(cell.bytesPerDecision())).append(" |");
			}
			line(row.toString());
		}
		line("");
	}

	/**
	 * The allocation targets (issue 31), measured on JMH at 1 thread.
	 */
	private void jmhTargets() {
		JmhDecisions.Measured jmh = this.results.jmh;
		if (jmh == null) {
			line("| JMH: a leased local decision allocates nothing; an exact one no more than plain Lettuce's call | "
					+ "not measured | - |");
			return;
		}
		JmhDecisions.Cell local = jmh.of("leasedFromLease", 1);
		targetRow(new Target("JMH: a leased local decision (`tryFromLease`) allocates 0 bytes",
				Spread.of(local.bytesPerDecision()), JmhDecisions.Measured::bytes, 0, false,
				() -> this.notes.jmhLeasedAllocation(local)));
		JmhDecisions.Cell exact = jmh.of("exact", 1);
		JmhDecisions.Cell plain = jmh.of("plainLettuce", 1);
		Spread ratio = Spread.of(exact.bytesPerDecision() / plain.bytesPerDecision());
		targetRow(new Target("JMH: an exact decision allocates ≤ 1.00x plain Lettuce's call of the same script", ratio,
				Spread::ratio, 1.0, false, () -> this.notes.jmhExactAllocation(exact, plain)));
	}

	private void denyCache() {
		line("## Deny cache");
		line("");
		line("`RateLimitEnforcer` (the path of the servlet filter and `@RateLimited`) on our Redis backend, policy "
				+ "`1/1h` token-bucket, deny cache as the starter ships it (10,000 clients, answers for at most one "
				+ "second): " + this.settings.denyCacheClients() + " clients send " + this.settings.denyCacheRequests()
				+ " requests each, round-robin, so each is admitted once and then refused. Script calls counted by "
				+ "Redis; calls per denied request = (calls - admitted) / denied.");
		line("");
		line("| deny cache | admitted | denied | script calls | Redis calls per denied request |");
		line("|---|---:|---:|---:|---:|");
		this.results.denyCache.forEach((on, result) -> line("| " + (on ? "on" : "off") + " | " + result.allowed()
				+ " | " + result.denied() + " | " + result.calls() + " | "
				+ String.format(Locale.ROOT, "%.4f", result.callsPerDenied()) + " |"));
		line("");
	}

	private void plans() {
		PlanDecisions.Result plans = this.results.plans;
		line("## Plans and overrides");
		line("");
		line("The path of the servlet filter (the client's plan, then `RateLimitEnforcer.enforce`) on one enforcer and "
				+ "one Redis backend as the starter wires them (deny cache on, overrides applied), token-bucket, limits "
				+ "the load never reaches, " + String.format(Locale.ROOT, "%,d", DecisionLoad.KEYS) + " clients, "
				+ "measured side by side in each run: a plain policy; a policy with two plans (`free` the default, "
				+ "`pro`), every other client on each, picked by a `PlanResolver` that looks the client up in a map; a "
				+ "plain policy with every client under an override (the Redis store's, polled every 500 ms as "
				+ "shipped: a decision reads this instance's copy); a plain policy on a second enforcer whose "
				+ "decisions are `ratelimit.decision` observations handled as Actuator does without tracing "
				+ "(`DefaultMeterObservationHandler` on a meter registry), the others' registry being "
				+ "`ObservationRegistry.NOOP`. Decisions per second"
				+ errors(plans.errors()) + ":");
		line("");
		tableHeader("path");
		for (PlanDecisions.Path path : PlanDecisions.Path.values()) {
			row(path.label(), (threads) -> plans.rate(path, threads).format(Spread::rate));
		}
		line("");
		line("Client CPU per decision (µs, everything the JVM did), and each path's decisions per client CPU-second "
				+ "over the plain policy's, the ratio the rates would show had both had the same CPU:");
		line("");
		tableHeader("path");
		for (PlanDecisions.Path path : PlanDecisions.Path.values()) {
			row(path.label() + ", µs", (threads) -> plans.clientCpuMicros(path, threads).format(Spread::micros));
		}
		for (PlanDecisions.Path path : List.of(PlanDecisions.Path.PLANS, PlanDecisions.Path.OVERRIDE,
				PlanDecisions.Path.OBSERVED)) {
			row(path.label() + " / plain policy, per CPU-second",
					(threads) -> plans.cpuRatio(path, threads).format(Spread::ratio));
		}
		line("");
	}

	private void leases() {
		LeaseDecisions.Result leases = this.results.leases;
		LeaseSettings lease = LeaseDecisions.LEASE;
		line("## Leased permits");
		line("");
		line("`LeasedRateLimiter` (batch " + lease.batch() + (lease.adaptive() ? ", adaptive" : ", fixed") + ", max-age "
				+ lease.maxAge().toMillis() + " ms) over our Redis backend, against the backend alone (exact: one "
				+ "script call per decision), on one Lettuce connection shared by all threads, limit `"
				+ LeaseDecisions.LIMIT + "` (which not even one hot key reaches in the whole run: every decision is "
				+ "admitted, a refusal would count as an error" + errors(leases.errors()) + ")"
				+ (this.settings.prime() ? ", every key already written (and leased) once before the runs" : "")
				+ ". One hot key: every decision for the same client, as a global limit or one big customer; "
				+ LeaseDecisions.Keys.SPREAD.label() + ": random clients, as above. In each run exact and leased of a "
				+ "cell are measured one right after the other, their order alternating from run to run. Redis calls: "
				+ "the script calls (EVALSHA and EVAL: exact decisions, lease grants, the fixed window's returns of "
				+ "unused permits) Redis counted (`INFO commandstats`) over the measured interval, per decision made. "
				+ "The rows of batch " + String.format(Locale.ROOT, "%,d", LeaseDecisions.LARGE_LEASE.batch())
				+ " lease the same way with that batch: one key's rate on an instance is bounded by about a batch per "
				+ "renewal round trip (one renewal in flight per key), which at batch " + lease.batch() + " the "
				+ "hot key's threads reach; with the larger batch they do not, and what a decision costs is the take "
				+ "from the lease in hand. Decisions per second:");
		line("");
		tableHeader("mode, algorithm, keys");
		forEachLeaseCell((name, cell) -> row(name, (threads) -> leases.rate(cell.apply(threads)).format(Spread::rate)));
		line("");
		line("Leased / exact, run by run, then the median; in decisions per second, and per client CPU-second (what "
				+ "the ratio would be had both had the same client CPU):");
		line("");
		tableHeader("ratio");
		for (LeaseDecisions.Mode mode : LEASED_MODES) {
			for (Algorithm algorithm : LeaseDecisions.ALGORITHMS) {
				for (LeaseDecisions.Keys keys : LeaseDecisions.Keys.values()) {
					String name = ((mode == LeaseDecisions.Mode.LEASED) ? "" : " (" + mode.label() + ")") + ", "
							+ algorithm.id() + ", " + keys.label();
					row("leased / exact" + name, (threads) -> leases
						.leasedOverExact(leaseCell(algorithm, keys, mode, threads))
						.format(Spread::ratio));
					row("per client CPU-second" + name, (threads) -> leases
						.leasedOverExactPerCpu(leaseCell(algorithm, keys, mode, threads))
						.format(Spread::ratio));
				}
			}
		}
		line("");
		line("Redis script calls per decision, measured:");
		line("");
		tableHeader("mode, algorithm, keys");
		forEachLeaseCell((name, cell) -> row(name,
				(threads) -> leases.callsPerDecision(cell.apply(threads)).format(BenchmarkReport::calls)));
		line("");
		line("Client CPU per decision (µs, everything the JVM did) and Redis' share of its CPU:");
		line("");
		tableHeader("mode, algorithm, keys");
		forEachLeaseCell((name, cell) -> row(name, (threads) -> leases
			.spread(cell.apply(threads), Measurement::clientCpuMicrosPerDecision).format(MissNotes::micros) + ", "
				+ leases.spread(cell.apply(threads), Measurement::redisCpuShare).format(MissNotes::percent)));
		line("");
		line(leaseMeaning(leases));
		line("");
	}

	/**
	 * What the lease numbers mean, from this run's own numbers.
	 */
	private String leaseMeaning(LeaseDecisions.Result leases) {
		int most = leases.threads().get(leases.threads().size() - 1);
		Algorithm algorithm = LeaseDecisions.ALGORITHMS.get(0);
		LeaseDecisions.Cell hotLeased = leaseCell(algorithm, LeaseDecisions.Keys.HOT, LeaseDecisions.Mode.LEASED, most);
		LeaseDecisions.Cell spreadLeased = leaseCell(algorithm, LeaseDecisions.Keys.SPREAD,
				LeaseDecisions.Mode.LEASED, most);
		double hotCalls = leases.callsPerDecision(hotLeased).median();
		double redisShare = leases.spread(hotLeased, Measurement::redisCpuShare).median();
		double clientBusy = leases.spread(hotLeased, Measurement::clientCpuBusy).median();
		if (Double.isNaN(clientBusy)) {
			clientBusy = leases.spread(hotLeased, Measurement::clientCpuShare).median();
		}
		double perKey = leases.rate(spreadLeased).median() / DecisionLoad.KEYS;
		StringBuilder meaning = new StringBuilder("What it means: on one hot key (" + algorithm.id() + ", " + most
				+ " threads) leasing made " + leases.rate(hotLeased).format(Spread::rate) + " decisions/s against "
				+ leases.rate(hotLeased.exact()).format(Spread::rate) + " exact ("
				+ leases.leasedOverExact(hotLeased).format(Spread::ratio) + "), with " + calls(hotCalls)
				+ " Redis calls per decision (one call per " + String.format(Locale.ROOT, "%,.0f", 1 / hotCalls)
				+ " decisions) against " + calls(leases.callsPerDecision(hotLeased.exact()).median())
				+ ". Redis' CPU was " + MissNotes.percent(redisShare) + " busy with the leased load and "
				+ MissNotes.percent(leases.spread(hotLeased.exact(), Measurement::redisCpuShare).median())
				+ " with the exact one; the clients' CPU " + MissNotes.percent(clientBusy) + " ("
				+ MissNotes.micros(leases.spread(hotLeased, Measurement::clientCpuMicrosPerDecision).median())
				+ " per leased decision)"
				+ ((redisShare < CellCost.SATURATED && clientBusy >= CellCost.SATURATED)
						? ": the leased hot key was bounded by the instance's own CPU, not by its Redis core."
						: ".")
				+ " Over " + LeaseDecisions.Keys.SPREAD.label() + " each key saw about "
				+ String.format(Locale.ROOT, "%,.1f", perKey) + " leased decisions per second, so a lease covers "
				+ "fewer of them: " + calls(leases.callsPerDecision(spreadLeased).median())
				+ " Redis calls per decision, " + leases.leasedOverExact(spreadLeased).format(Spread::ratio)
				+ " exact's decisions per second.");
		List<String> slower = new ArrayList<>();
		forEachLeaseCell((name, cell) -> leases.threads().forEach((threads) -> {
			LeaseDecisions.Cell leased = cell.apply(threads);
			if (leased.mode() != LeaseDecisions.Mode.EXACT && leases.leasedOverExact(leased).median() < 1) {
				slower.add(name + ", " + MissNotes.threads(threads));
			}
		}));
		if (!slower.isEmpty()) {
			meaning.append(" Leasing was slower than exact in: ").append(String.join("; ", slower)).append('.');
		}
		return meaning.toString();
	}

	private void forEachLeaseCell(BiConsumer<String, IntFunction<LeaseDecisions.Cell>> action) {
		for (Algorithm algorithm : LeaseDecisions.ALGORITHMS) {
			for (LeaseDecisions.Keys keys : LeaseDecisions.Keys.values()) {
				for (LeaseDecisions.Mode mode : LeaseDecisions.Mode.values()) {
					action.accept(mode.label() + ", " + algorithm.id() + ", " + keys.label(),
							(threads) -> leaseCell(algorithm, keys, mode, threads));
				}
			}
		}
	}

	private static LeaseDecisions.Cell leaseCell(Algorithm algorithm, LeaseDecisions.Keys keys,
			LeaseDecisions.Mode mode, int threads) {
		return new LeaseDecisions.Cell(algorithm, keys, mode, threads);
	}

	private static String errors(long errors) {
		return (errors > 0) ? " (" + errors + " errors)" : "";
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
		line(SampleApp.values().length + " sample apps side by side (127.0.0.1, `-Xmx512m`, "
				+ "`--ratelimit.policies.hello.limits=" + HttpOverhead.LIMIT + "` so nothing is refused), on the same "
				+ "Redis: the servlet sample (`sample-app`, Spring MVC on Tomcat) as shipped, where Spring Boot observes "
				+ "every Lettuce command; the same with `--spring.autoconfigure.exclude="
				+ HttpOverhead.LETTUCE_OBSERVATION + "`; the WebFlux sample (`sample-webflux-app`, Spring WebFlux on "
				+ "Reactor Netty) as shipped; and both samples as shipped with policy `hello` leased (`"
				+ String.join(" ", HttpOverhead.leaseArguments()) + "`; the benchmark checks that it has meter `"
				+ HttpOverhead.LEASE_METER + "` before measuring it). `/api/hello` goes through the rate limit filter "
				+ "(policy `hello`, key `ip`: every wrk connection is one client, 127.0.0.1, so under leasing one hot "
				+ "key; token-bucket; exact: one Redis decision per request, which the servlet filter waits for on the "
				+ "request's thread and the WebFlux filter continues from when Lettuce completes it; leased: a Redis "
				+ "call only when the lease in hand runs out); `/api/unlimited` does not. `wrk " + wrkOptions()
				+ " <url>`, "
				+ this.settings.httpWarmUps() + " warm-up run(s) of every (app, path) and "
				+ HttpOverhead.LEASED_WARM_UP_SECONDS + " s more of each leased app's `/api/hello` (its renewal path, a Redis call per lease of 100 "
				+ "requests, is otherwise still being compiled by the JIT, whose threads then took several µs per "
				+ "request), then " + this.settings.runs() + " rounds: app by app, in an order that rotates every "
				+ "round, each app's runs one right after the other, first one not measured (an app's first seconds "
				+ "after another app ran are measurably slower), then its two paths as A, B, B, A (A the limited path "
				+ "in even rounds, the unlimited one in odd ones), so that the ratio of an app's two paths, each the "
				+ "mean of its two runs in the round, compares adjacent runs and a drift during them weighs on both "
				+ "alike; the table's medians are over every measured run. App CPU per request: the sample app process' CPU time (`/proc/<pid>/stat`) over the "
				+ "run, per request. Redis script calls per request: EVALSHA and EVAL counted by Redis (`INFO "
				+ "commandstats`) over the run, from any client (the unlimited path's calls are the apps' background "
				+ "work, such as polling for overrides), per request wrk completed.");
		line("");
		line("| sample app | path | requests/s | Redis script calls per request | app CPU per request | CPU of wrk "
				+ "and the app busy, all processes | p50 (ms) | p99 (ms) |");
		line("|---|---|---:|---:|---:|---:|---:|---:|");
		for (SampleApp app : SampleApp.values()) {
			for (boolean limited : List.of(false, true)) {
				line("| " + app.label() + " | " + HttpOverhead.path(limited) + (limited ? " (limited)" : "")
						+ " | " + http.spread(app, limited, WrkRun::requestsPerSecond).format(Spread::rate)
						+ " | " + http.spread(app, limited, WrkRun::scriptCallsPerRequest)
							.format(BenchmarkReport::calls)
						+ " | " + http.spread(app, limited, WrkRun::appCpuMicrosPerRequest)
							.format(MissNotes::micros)
						+ " | " + http.spread(app, limited, WrkRun::clientCpuBusy).format(MissNotes::percent)
						+ " | " + http.spread(app, limited, WrkRun::p50Millis).format(BenchmarkReport::millis)
						+ " | " + http.spread(app, limited, WrkRun::p99Millis).format(BenchmarkReport::millis)
						+ " |");
			}
		}
		line("");
		line("| ratio (round by round, then the median) | value |");
		line("|---|---:|");
		for (SampleApp app : SampleApp.values()) {
			line("| limited / unlimited, " + app.label() + " | " + http.limitedOverUnlimited(app).format(Spread::ratio)
					+ " |");
		}
		line("| servlet: limited requests/s, observation off / on | " + http.offOverOn(true).format(Spread::ratio)
				+ " |");
		line("| servlet: unlimited requests/s, observation off / on (no Redis command on this path: the two apps' "
				+ "noise) | " + http.offOverOn(false).format(Spread::ratio) + " |");
		line("| limited requests/s, WebFlux / servlet (both as shipped) | "
				+ http.webfluxOverServlet(true).format(Spread::ratio) + " |");
		line("| unlimited requests/s, WebFlux / servlet (both as shipped) | "
				+ http.webfluxOverServlet(false).format(Spread::ratio) + " |");
		line("");
		List<String> meters = new ArrayList<>();
		for (SampleApp app : SampleApp.values()) {
			meters.add(app.label() + ": " + meters(http, app));
		}
		line("Non-2xx responses over all runs: " + http.non2xx() + ". Meters naming Lettuce or Redis commands in "
				+ "`/actuator/metrics`: " + String.join("; ", meters) + ".");
		line("");
	}

	private void gateway() {
		GatewayOverhead.Result gateway = this.results.gateway;
		if (gateway == null) {
			line("## Gateway");
			line("");
			line("Not measured: " + this.results.gatewaySkipped + ".");
			line("");
			return;
		}
		new GatewayReport(gateway, this.settings).section().forEach(this::line);
	}

	private void waiting() {
		WaitingPermits.Result waiting = this.results.waiting;
		if (waiting == null) {
			line("## Waiting for a permit");
			line("");
			line("Not measured.");
			line("");
			return;
		}
		new WaitingReport(waiting).section().forEach(this::line);
	}

	private String wrkOptions() {
		return "-t" + this.settings.wrkThreads() + " -c" + this.settings.wrkConnections() + " -d"
				+ this.settings.httpSeconds() + "s --latency";
	}

	private static String meters(HttpOverhead.Result http, SampleApp app) {
		List<String> meters = http.lettuceMeters().getOrDefault(app, List.of());
		return meters.isEmpty() ? "none" : "`" + String.join("`, `", meters) + "`";
	}

	private void method() {
		line("## Method");
		line("");
		line("- **Pinning.** " + this.environment.pinning() + ". Redis' single thread never waits for a CPU that a "
				+ "client holds, so Redis' numbers are Redis' own, and every client-side cost lands on the one client "
				+ "CPU, where the benchmark JVM's CPU time per decision measures it.");
		line("- **Runs.** " + this.settings.runs() + " runs; in each, for 1, 16 and 64 threads and every algorithm, "
				+ "the contenders run one right after the other (ours, plain Lettuce, Bucket4j with the token bucket, "
				+ "redis-benchmark), the order rotating by one place each run. Each contender stays connected for the "
				+ "whole benchmark"
				+ (this.settings.prime() ? "; every client's keys are written once before the first run (which also "
						+ "warms the JIT up), so every decision reads and updates existing state." : "."));
		line("- **Why a timed loop, not JMH.** Each decision is a round trip of tens of microseconds or more, far "
				+ "above what JMH protects against, and the question is throughput at a fixed number of threads "
				+ "sharing one connection, side by side with tools outside the JVM. `DecisionLoad` starts the threads, "
				+ "discards the warm-up, counts decisions over the measured interval and stops.");
		line("- **Ours:** `RedisRateLimiterBackend` on a `LettuceConnectionFactory` (its shared native connection, as "
				+ "Spring Boot configures it), started (`start()`: connected, scripts loaded), decision timeout 5 s, "
				+ "`tryAcquire(client)`.");
		line("- **Plain Lettuce, our script:** `RedisClient` with one `StatefulRedisConnection<byte[], byte[]>`, "
				+ "`async().evalsha(sha, MULTI, keys, args)` then `get(5 s)` on the future: the SHA-1 of `LuaScript`, "
				+ "the keys as `StorageKeys.clientKey(client) + limitIndex`, the arguments from `LimitArguments` "
				+ "(no re-encoding), everything encoded once up front. The floor of any Java client sending this script "
				+ "on one shared connection.");
		OurScript script = new OurScript(OurLimiter.KEY_PREFIX, OurLimiter.policy(Algorithm.TOKEN_BUCKET,
				OurLimiter.LIMIT));
		line("- **redis-benchmark:** `redis-benchmark -n N -c <threads> -P 1 -r " + DecisionLoad.KEYS
				+ " --csv EVALSHA <sha> " + script.keys("").size() + " " + String.join(" ",
						script.keys(RedisBenchmarkTool.RANDOM_CLIENT))
				+ " " + String.join(" ", script.argumentText()) + "` (token-bucket shown; keys and arguments from "
				+ "the same classes), N sized from a 2,000-call calibration run to last about the measured interval.");
		line("- **Bucket4j:** `Bucket4jLettuce.casBasedBuilder(connection)` (compare-and-swap), capacity 100,000 "
				+ "refilled greedily per 100 days (the same limit), one `BucketProxy` per client built up front, "
				+ "`tryConsume(1)`.");
		line("- **Leased permits:** `new LeasedRateLimiter(limiter, new LeaseSettings(" + LeaseDecisions.LEASE.batch()
				+ ", " + LeaseDecisions.LEASE.adaptive() + ", " + LeaseDecisions.LEASE.maxAge() + "))` over the "
				+ "backend's limiter of policy `leased` (its default maximum of keys, "
				+ String.format(Locale.ROOT, "%,d", LeasedRateLimiter.DEFAULT_MAXIMUM_KEYS) + "), `tryAcquire(client)`; "
				+ "the large-batch rows the same with a batch of " + LeaseDecisions.LARGE_LEASE.batch()
				+ " over policy `leased_large`; "
				+ "their exact counterpart is the backend's limiter of policy `exact`, the same algorithm and limit; one "
				+ "of each per algorithm and key spread, kept for the whole benchmark, so leases carry over from cell "
				+ "to cell as they would in a running instance.");
		line("- Traffic goes only to 127.0.0.1, to the Redis server the benchmark started; every run is bounded in "
				+ "time.");
		line("");
	}

	private void misses() {
		line("## What the misses mean");
		line("");
		if (this.missed.isEmpty()) {
			line("Every target was met in this run.");
			line("");
		}
		for (Target target : this.missed) {
			line("- " + target.note().get());
		}
		if (!this.missed.isEmpty()) {
			line("");
		}
		line(trust());
	}

	private String trust() {
		if (this.settings.runs() < 2) {
			return "One run only: no spread to judge noise by.";
		}
		return "How far to trust these numbers: the widest run-to-run range of an ours / plain Lettuce ratio was "
				+ widestRange() + " of its median; a miss smaller than the spread of its own cell is within noise. "
				+ "Other processes on the machine (load average above; the CPUs' busy shares beside our own "
				+ "processes' in the cost table) take CPU from both sides at random moments.";
	}

	private String widestRange() {
		double widest = 0;
		String where = "";
		for (Algorithm algorithm : Algorithm.values()) {
			for (int threads : this.decisions.threads()) {
				Spread ratio = ratio(Kind.OURS, Kind.PLAIN_LETTUCE, algorithm, threads);
				if (ratio.relativeRange() > widest) {
					widest = ratio.relativeRange();
					where = "ours / plain Lettuce, " + algorithm.id() + ", " + MissNotes.threads(threads);
				}
			}
		}
		return MissNotes.percent(widest) + " (" + where + ")";
	}

	private Spread ratio(Kind numerator, Kind denominator, Algorithm algorithm, int threads) {
		Algorithm other = (denominator == Kind.BUCKET4J) ? Algorithm.TOKEN_BUCKET : algorithm;
		return this.decisions.ratio(new Cell(numerator, algorithm, threads), new Cell(denominator, other, threads));
	}

	private String rate(Kind kind, Algorithm algorithm, int threads) {
		return this.decisions.rate(kind, algorithm, threads).format(Spread::rate);
	}

	private String spread(Kind kind, Algorithm algorithm, int threads,
			ToDoubleFunction<Measurement> value, DoubleFunction<String> format) {
		return this.decisions.spread(kind, algorithm, threads, value).format(format);
	}

	private String errors(Kind kind, Algorithm algorithm, int threads) {
		return errors(this.decisions.of(kind, algorithm, threads).stream().mapToLong(Measurement::errors).sum());
	}

	private void tableHeader(String first) {
		StringBuilder header = new StringBuilder("| " + first + " |");
		StringBuilder rule = new StringBuilder("|---|");
		for (int threads : this.decisions.threads()) {
			header.append(' ').append(threads).append(threads == 1 ? " thread |" : " threads |");
			rule.append("---:|");
		}
		line(header.toString());
		line(rule.toString());
	}

	private void row(String name, IntFunction<String> cell) {
		StringBuilder row = new StringBuilder("| " + name + " |");
		for (int threads : this.decisions.threads()) {
			row.append(' ').append(cell.apply(threads)).append(" |");
		}
		line(row.toString());
	}

	/**
	 * A cell's section followed by its targets, as a run of that cell alone writes them.
	 * @param section the section's lines
	 * @param targets the cell's targets
	 * @return the markdown
	 */
	static String alone(List<String> section, List<Target> targets) {
		StringBuilder out = new StringBuilder();
		section.forEach((line) -> out.append(line).append('\n'));
		out.append("| target | measured | met |\n|---|---|---|\n");
		for (Target target : targets) {
			out.append("| ").append(target.name()).append(" | ").append(target.measuredText()).append(" | ")
				.append(target.verdict()).append(" |\n");
		}
		return out.toString();
	}

	static String calls(double calls) {
		return String.format(Locale.ROOT, "%.4f", calls);
	}

	static String millis(double millis) {
		return String.format(Locale.ROOT, "%.2f", millis);
	}

	private void line(String text) {
		this.out.append(text).append('\n');
	}

}
