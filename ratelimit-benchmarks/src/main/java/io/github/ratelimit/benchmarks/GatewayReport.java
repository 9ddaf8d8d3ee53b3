package io.github.ratelimit.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

import io.github.ratelimit.benchmarks.GatewayOverhead.Route;

/**
 * The gateway cell's part of the report: its targets (issue 29) and its section, also written alone when only the
 * gateway cell runs ({@code BENCHMARK_ONLY=gateway}).
 */
final class GatewayReport {

	/** Ours at least the gateway's own limiter's requests per second. */
	static final double OURS_OVER_SCG = 1.0;

	/** The exact route at least this share of the unlimited route's requests per second. */
	static final double EXACT_TARGET = 0.85;

	/** The leased route at least this share of the unlimited route's requests per second. */
	static final double LEASED_TARGET = 0.95;

	private final GatewayOverhead.Result result;

	private final Settings settings;

	GatewayReport(GatewayOverhead.Result result, Settings settings) {
		this.result = result;
		this.settings = settings;
	}

	/**
	 * Every target at every connection count: ours (exact and leased) against the gateway's limiter, and against the
	 * unlimited route.
	 * @return the targets
	 */
	List<Target> targets() {
		List<Target> targets = new ArrayList<>();
		for (int connections : this.result.connections()) {
			for (Route ours : List.of(Route.EXACT, Route.LEASED)) {
				targets.add(target(ours, Route.SCG, OURS_OVER_SCG, connections));
			}
			targets.add(target(Route.EXACT, Route.UNLIMITED, EXACT_TARGET, connections));
			targets.add(target(Route.LEASED, Route.UNLIMITED, LEASED_TARGET, connections));
		}
		return targets;
	}

	private Target target(Route route, Route other, double target, int connections) {
		Spread ratio = this.result.ratio(route, other, connections);
		return new Target("gateway: " + route.label() + " ≥ " + Spread.ratio(target) + " " + other.label()
				+ ", requests/s, " + connections + " connections", ratio, Spread::ratio, target, true,
				() -> note(route, other, connections, ratio, target));
	}

	private String note(Route route, Route other, int connections, Spread ratio, double target) {
		return "Gateway, " + route.label() + " / " + other.label() + " at " + connections + " connections: "
				+ ratio.format(Spread::ratio) + " against " + Spread.ratio(target) + ". Requests/s "
				+ rate(route, connections) + " against " + rate(other, connections) + "; gateway CPU per request "
				+ cpu(route, connections) + " against " + cpu(other, connections) + "; Redis script calls per request "
				+ calls(route, connections) + " against " + calls(other, connections) + ".";
	}

	/**
	 * The section {@code ## Gateway}.
	 * @return its lines
	 */
	List<String> section() {
		List<String> lines = new ArrayList<>();
		lines.add("## Gateway");
		lines.add("");
		lines.add("`sample-gateway` (Spring Cloud Gateway's WebFlux server on Reactor Netty, `-Xmx512m`, profile "
				+ "`benchmark`) with the benchmark's configuration only (`ratelimit-benchmarks/src/main/resources/"
				+ GatewayOverhead.CONFIG + "`), four routes to one upstream (the JDK's HTTP server in the benchmark "
				+ "JVM, on the client CPU, answering `ok` to every request), on the same Redis: "
				+ "`/bench/unlimited/**` with no limiter; `/bench/scg/**` with the gateway's `RequestRateLimiter` and "
				+ "its `RedisRateLimiter` (replenish rate and burst capacity 1,000,000, the key the client's address); "
				+ "`/bench/exact/**` with `RateLimit=bench-exact` (token-bucket `1000000/1s`, key `ip`: one Redis "
				+ "decision per request); `/bench/leased/**` with `RateLimit=bench-leased`, the same policy leased (`"
				+ String.join(" ", HttpOverhead.leaseArguments(GatewayOverhead.LEASED_POLICY)) + "`; the benchmark "
				+ "checks that it has meter `" + HttpOverhead.LEASE_METER + "` before measuring). No limit is reached. "
				+ "`wrk -t" + this.settings.wrkThreads() + " -c<connections> -d" + this.settings.httpSeconds()
				+ "s --latency <url>`, " + this.settings.httpWarmUps() + " warm-up run(s) of every (connections, "
				+ "route), then " + this.settings.runs() + " rounds, each running the four routes at every connection "
				+ "count in an order that changes every round. Gateway CPU per request: the gateway process' CPU time "
				+ "(`/proc/<pid>/stat`) over the run, per request. Redis script calls per request: EVALSHA and EVAL "
				+ "counted by Redis (`INFO commandstats`) over the run, from any client, per request wrk completed.");
		lines.add("");
		lines.add("| connections | route | requests/s | / unlimited (round by round) | gateway CPU per request "
				+ "| Redis script calls per request | CPU of wrk, the gateway and the upstream busy, all processes "
				+ "| p50 (ms) | p99 (ms) |");
		lines.add("|---:|---|---:|---:|---:|---:|---:|---:|---:|");
		for (int connections : this.result.connections()) {
			for (Route route : Route.values()) {
				lines.add("| " + connections + " | " + route.label() + " | " + rate(route, connections) + " | "
						+ ((route == Route.UNLIMITED) ? "-"
								: this.result.ratio(route, Route.UNLIMITED, connections).format(Spread::ratio))
						+ " | " + cpu(route, connections) + " | " + calls(route, connections) + " | "
						+ this.result.spread(route, connections, WrkRun::clientCpuBusy).format(MissNotes::percent)
						+ " | " + latency(route, connections, WrkRun::p50Millis) + " | "
						+ latency(route, connections, WrkRun::p99Millis) + " |");
			}
		}
		lines.add("");
		lines.add("| ratio (round by round, then the median) | " + String.join(" | ", this.result.connections()
			.stream()
			.map((connections) -> connections + " connections")
			.toList()) + " |");
		lines.add("|---|" + "---:|".repeat(this.result.connections().size()));
		for (Route ours : List.of(Route.EXACT, Route.LEASED)) {
			lines.add("| " + ours.label() + " / " + Route.SCG.label() + " | " + String.join(" | ", this.result
				.connections()
				.stream()
				.map((connections) -> this.result.ratio(ours, Route.SCG, connections).format(Spread::ratio))
				.toList()) + " |");
		}
		lines.add("");
		lines.add("Non-2xx responses over all runs: " + this.result.non2xx() + ".");
		lines.add("");
		lines.add("Admitted against the limit, on the same gateway and Redis, routes whose limits the load reaches "
				+ "(one key, the client's address; `wrk -t" + this.settings.wrkThreads() + " -c"
				+ GatewayOverhead.ADMISSION_CONNECTIONS + " -d" + this.settings.httpSeconds() + "s`, once each, "
				+ "after the rounds; admitted: the responses wrk counted as 2xx or 3xx; the limit: the bucket's burst "
				+ "plus its refill over the run's nominal length; Redis stopped mid-run: stopped for the middle third "
				+ "of the run, then started again, empty, so a limiter whose state is in Redis may admit a second "
				+ "burst; ours with its default failure mode, `open`, and with `local`; gateway instances: as many "
				+ "gateways on the one Redis, each loaded by a wrk of its own at once, admitted summed):");
		lines.add("");
		lines.add("| route | requests | admitted | limit over the run | admitted / limit |");
		lines.add("|---|---:|---:|---:|---:|");
		for (GatewayOverhead.Admission admission : this.result.admissions()) {
			lines.add("| " + admission.route().label() + (admission.redisStopped() ? ", Redis stopped mid-run" : "")
					+ ((admission.instances() > 1) ? ", " + admission.instances() + " gateway instances" : "")
					+ " | " + String.format(Locale.ROOT, "%,d", admission.requests())
					+ " | " + String.format(Locale.ROOT, "%,d", admission.admitted()) + " | "
					+ String.format(Locale.ROOT, "%,d", admission.route().limit(admission.seconds())) + " | "
					+ Spread.ratio(admission.overLimit()) + " |");
		}
		lines.add("");
		return lines;
	}

	/**
	 * The section and the targets, for a run of the gateway cell alone.
	 * @return the markdown
	 */
	String markdown() {
		return BenchmarkReport.alone(section(), targets());
	}

	private String latency(Route route, int connections, ToDoubleFunction<WrkRun> percentile) {
		return this.result.spread(route, connections, percentile).format(BenchmarkReport::millis);
	}

	private String rate(Route route, int connections) {
		return this.result.spread(route, connections, WrkRun::requestsPerSecond).format(Spread::rate);
	}

	private String cpu(Route route, int connections) {
		return this.result.spread(route, connections, WrkRun::appCpuMicrosPerRequest).format(MissNotes::micros);
	}

	private String calls(Route route, int connections) {
		return this.result.spread(route, connections, WrkRun::scriptCallsPerRequest)
			.format(BenchmarkReport::calls);
	}

}
