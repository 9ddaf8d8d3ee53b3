package io.github.ratelimit.benchmarks;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.DoubleFunction;
import java.util.function.ToDoubleFunction;

import io.github.bucket4j.redis.lettuce.Bucket4jLettuce;
import io.github.ratelimit.benchmarks.WaitingPermits.Kind;
import io.github.ratelimit.benchmarks.WaitingPermits.Run;
import io.github.ratelimit.benchmarks.WaitingPermits.Shape;
import org.redisson.Redisson;

/**
 * The waiting cell's part of the report: its targets (issue 30) and its section, also written alone when only the
 * waiting cell runs ({@code BENCHMARK_ONLY=waiting}).
 */
final class WaitingReport {

	/** Ours at least this share of the rate. */
	static final double UTILISATION_TARGET = 0.98;

	private final WaitingPermits.Result result;

	private final Shape shape;

	private final long runs;

	WaitingReport(WaitingPermits.Result result) {
		this.result = result;
		this.shape = result.shape();
		this.runs = result.runs().stream().map(Run::run).distinct().count();
	}

	/**
	 * For each of our algorithms: utilisation, never over the bound, fewer Redis calls per permit than Redisson.
	 * @return the targets
	 */
	List<Target> targets() {
		List<Target> targets = new ArrayList<>();
		for (Kind ours : ours()) {
			Spread utilisation = this.result.spread(ours, Run::utilisation);
			targets.add(new Target("waiting: " + ours.label() + " ≥ " + percent(UTILISATION_TARGET) + " of the rate ("
					+ this.shape.instances() + " instances, permits/s over " + this.shape.rate() + "/s)", utilisation,
					WaitingReport::percent, UTILISATION_TARGET, true, () -> utilisationNote(ours, utilisation)));
			Spread over = Spread.of((double) this.result.runsOver(ours));
			targets.add(new Target("waiting: " + ours.label() + " never over the rate (runs admitting more than the "
					+ "rate over the interval plus one full bucket)", over, (value) -> String.format(Locale.ROOT,
							"%.0f of %d runs", value, this.runs), 0, false, () -> overNote(ours)));
			Spread calls = this.result.ratio(ours, Kind.REDISSON, Run::callsPerPermit);
			targets.add(new Target("waiting: " + ours.label() + " fewer Redis calls per permit than Redisson (ours / "
					+ "Redisson, run by run)", calls, Spread::ratio, 1.0, false, () -> callsNote(ours, calls)));
		}
		return targets;
	}

	/**
	 * The section {@code ## Waiting for a permit}.
	 * @return its lines
	 */
	List<String> section() {
		Shape s = this.shape;
		List<String> lines = new ArrayList<>();
		lines.add("## Waiting for a permit");
		lines.add("");
		lines.add(s.instances() + " limiter instances in the benchmark JVM, each with its own Redis client and "
				+ "connections, " + s.threads() + " threads each: every thread in a loop of \"one permit, waiting up "
				+ "to " + s.maxWait().toMillis() + " ms\" on one key that all instances share, "
				+ s.instances() * s.threads() + " callers wanting far more than the shared rate of " + s.rate()
				+ " permits per second. Every contender's limit is " + s.rate() + " permits per second (a bucket or "
				+ "window of " + s.rate() + " permits, refilled over one second), on the same Redis. Ours: "
				+ "`new WaitingRateLimiter(limiter).acquire(key, 1, maxWait)` over `RedisRateLimiterBackend`'s limiter of a policy `" + s.limit()
				+ "` (token-bucket; gcra: a call reserves its permit with one script call when it comes due within "
				+ "its wait, then sleeps until it is due), on a `LettuceConnectionFactory` of its own; Redisson ("
				+ Environment.jar(Redisson.class) + "): `RRateLimiter.trySetRate(RateType.OVERALL, " + s.rate()
				+ ", Duration.ofSeconds(1))`, then `tryAcquire(1, maxWait)`, on a `RedissonClient` of its own (single "
				+ "server, its defaults; its limiter counts the permits taken in the last second, so permits taken "
				+ "together free together and hungry callers take them in bursts, and its count over an interval "
				+ "depends on how many bursts fall in it); Bucket4j (" + Environment.jar(Bucket4jLettuce.class)
				+ "): `asBlocking().tryConsume(1, maxWait)` on a `BucketProxy` of its Lettuce compare-and-swap proxy "
				+ "manager, capacity " + s.rate() + " refilled greedily per second (a call reserves its permit, "
				+ "then sleeps until it is due), on a `RedisClient` of its own. In each of " + this.runs
				+ " runs every contender runs on a fresh key, in an order that changes from run to run: its instances "
				+ "start, the load runs " + s.warmUp().toMillis() + " ms (which also drains the full bucket a fresh "
				+ "key starts with), then " + s.measure().toMillis() + " ms are measured, then its instances close. "
				+ "Permits/s: the permits whose call returned in the interval, over its length; utilisation: that "
				+ "over the rate; over: a run that admitted more than the rate over the interval plus one full "
				+ "bucket; instances' shares: the lowest and the highest instance's share of the permits (even: "
				+ percent(1.0 / s.instances()) + " each); Redis calls per permit: the commands the contender's clients "
				+ "sent, counted in the bytes each wrote to its sockets (a script call counts once), per permit; Redis "
				+ "commands per permit: every command Redis executed (`INFO commandstats`: the commands a script calls "
				+ "counted too, `INFO` left out), per permit; client CPU: the benchmark JVM's CPU time over the "
				+ "interval (callers, the clients' threads, GC), per permit; Redis CPU: `INFO cpu` over the interval, "
				+ "per permit; gave up: calls that got no permit within their maximum wait.");
		lines.add("");
		lines.add("| contender | permits/s (rate " + s.rate() + ") | utilisation | runs over | instances' shares, "
				+ "lowest / highest | Redis calls per permit | Redis commands per permit | client CPU per permit "
				+ "| Redis CPU per permit | gave up |");
		lines.add("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
		for (Kind kind : Kind.values()) {
			lines.add("| " + kind.label() + " | " + spread(kind, Run::perSecond, WaitingReport::rate) + " | "
					+ spread(kind, Run::utilisation, WaitingReport::percent) + " | " + this.result.runsOver(kind)
					+ " of " + this.runs + " | " + spread(kind, Run::lowestShare, WaitingReport::percent) + " / "
					+ spread(kind, Run::highestShare, WaitingReport::percent) + " | "
					+ spread(kind, Run::callsPerPermit, WaitingReport::calls) + " | "
					+ spread(kind, Run::commandsPerPermit, WaitingReport::calls) + " | "
					+ spread(kind, Run::clientCpuMicrosPerPermit, MissNotes::micros) + " | "
					+ spread(kind, Run::redisCpuMicrosPerPermit, MissNotes::micros) + " | "
					+ spread(kind, Run::gaveUp, WaitingReport::count) + " |");
		}
		lines.add("");
		lines.add("| ratio (run by run, then the median) | Redis calls per permit | client CPU per permit | Redis CPU "
				+ "per permit |");
		lines.add("|---|---:|---:|---:|");
		for (Kind ours : ours()) {
			for (Kind other : List.of(Kind.REDISSON, Kind.BUCKET4J)) {
				lines.add("| " + ours.label() + " / " + other.label() + " | "
						+ this.result.ratio(ours, other, Run::callsPerPermit).format(Spread::ratio) + " | "
						+ this.result.ratio(ours, other, Run::clientCpuMicrosPerPermit).format(Spread::ratio) + " | "
						+ this.result.ratio(ours, other, Run::redisCpuMicrosPerPermit).format(Spread::ratio) + " |");
			}
		}
		lines.add("");
		lines.add("Commands Redis executed per permit, by command (medians; a script's own commands are counted under "
				+ "their names as well as in the script's call):");
		lines.add("");
		lines.add("| contender | commands per permit |");
		lines.add("|---|---|");
		for (Kind kind : Kind.values()) {
			List<String> commands = new ArrayList<>();
			for (Map.Entry<String, Double> command : this.result.commandsPerPermit(kind).entrySet()) {
				if (command.getValue() >= 0.001) {
					commands.add(command.getKey().toUpperCase(Locale.ROOT) + " " + calls(command.getValue()));
				}
			}
			lines.add("| " + kind.label() + " | " + (commands.isEmpty() ? "-" : String.join(", ", commands)) + " |");
		}
		lines.add("");
		lines.add("Calls that threw over all runs: " + this.result.errors() + ".");
		lines.add("");
		return lines;
	}

	/**
	 * The section and the targets, for a run of the waiting cell alone.
	 * @return the markdown
	 */
	String markdown() {
		return BenchmarkReport.alone(section(), targets());
	}

	private String utilisationNote(Kind ours, Spread utilisation) {
		double perSecond = this.result.spread(ours, Run::perSecond).median();
		double gaveUp = this.result.spread(ours, Run::gaveUp).median();
		StringBuilder note = new StringBuilder("**Waiting, " + ours.label() + ": " + utilisation.format(
				WaitingReport::percent) + " of the rate (target at least " + percent(UTILISATION_TARGET) + ").** ")
			.append(rate(perSecond)).append(" permits/s against ").append(this.shape.rate()).append("; ")
			.append(calls(this.result.spread(ours, Run::callsPerPermit).median()))
			.append(" Redis calls per permit; instances' shares ")
			.append(spread(ours, Run::lowestShare, WaitingReport::percent)).append(" to ")
			.append(spread(ours, Run::highestShare, WaitingReport::percent)).append("; ");
		if (gaveUp > 0) {
			note.append(count(gaveUp)).append(" calls per run gave up, so some callers' lines were longer than their "
					+ "maximum wait allowed while permits went untaken.");
		}
		else {
			note.append("no call gave up, so the permits not taken fell due while no head of a line was asking: "
					+ "the time between a permit falling due and a head's next call.");
		}
		note.append(" What would close it: ").append(rate(UTILISATION_TARGET * this.shape.rate() - perSecond))
			.append(" more permits per second taken.");
		return note.toString();
	}

	private String overNote(Kind ours) {
		long most = this.result.of(ours).stream().mapToLong(Run::over).max().orElse(0);
		return "**Waiting, " + ours.label() + ": " + this.result.runsOver(ours) + " of " + this.runs + " runs "
				+ "admitted more than the rate over the interval plus one full bucket (target none).** The most over: "
				+ most + " permits. A limiter must never do this: a fault to find, not noise.";
	}

	private String callsNote(Kind ours, Spread ratio) {
		double calls = this.result.spread(ours, Run::callsPerPermit).median();
		double redisson = this.result.spread(Kind.REDISSON, Run::callsPerPermit).median();
		return "**Waiting, " + ours.label() + ": " + spread(ours, Run::callsPerPermit, WaitingReport::calls)
				+ " Redis calls per permit against Redisson's " + spread(Kind.REDISSON, Run::callsPerPermit,
						WaitingReport::calls)
				+ " (ours / Redisson " + ratio.format(Spread::ratio) + ", target below 1.00x).** Each permit cost "
				+ "one call that admitted it and " + calls(calls - 1) + " calls that did not: each call reserves its "
				+ "permit when it comes due within the caller's maximum wait (one call per permit), and is refused "
				+ "when it does not, its caller giving up. Bucket4j's blocking bucket made "
				+ spread(Kind.BUCKET4J, Run::callsPerPermit, WaitingReport::calls) + " (it reserves its permit in "
				+ "one compare-and-swap, a GET and a script call, then sleeps until the permit is due). What would "
				+ "close it: " + calls(calls - redisson) + " fewer calls per permit.";
	}

	private static List<Kind> ours() {
		return Arrays.stream(Kind.values()).filter(Kind::ours).toList();
	}

	private String spread(Kind kind, ToDoubleFunction<Run> value, DoubleFunction<String> format) {
		return this.result.spread(kind, value).format(format);
	}

	static String percent(double share) {
		return String.format(Locale.ROOT, "%.1f%%", 100 * share);
	}

	private static String rate(double perSecond) {
		return String.format(Locale.ROOT, "%,.1f", perSecond);
	}

	private static String calls(double calls) {
		return String.format(Locale.ROOT, "%.3f", calls);
	}

	private static String count(double count) {
		return String.format(Locale.ROOT, "%,.0f", count);
	}

}
