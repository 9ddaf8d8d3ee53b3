package io.github.ratelimit.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

import io.github.ratelimit.benchmarks.DecisionBenchmark.Kind;
import io.github.ratelimit.core.Algorithm;

/**
 * Why a target was missed and what would close it, written from the run's own numbers: which resource was
 * saturated, what each contender spent per decision, and how much less ours would have to spend.
 */
final class MissNotes {

	private final Results results;

	MissNotes(Results results) {
		this.results = results;
	}

	String oursVsPlain(Algorithm algorithm, int threads, Spread ratio, double target) {
		CellCost ours = cost(Kind.OURS, algorithm, threads);
		CellCost plain = cost(Kind.PLAIN_LETTUCE, algorithm, threads);
		Spread perCpu = this.results.decisions.cpuRatio(new DecisionBenchmark.Cell(Kind.OURS, algorithm, threads),
				new DecisionBenchmark.Cell(Kind.PLAIN_LETTUCE, algorithm, threads));
		StringBuilder note = new StringBuilder();
		note.append(header("Ours vs plain Lettuce, " + algorithm.id() + ", " + threads(threads), ratio, target));
		note.append(saturation(ours, plain, "plain Lettuce"));
		note.append(" Client CPU per decision: ours ").append(micros(ours.clientCpuMicros())).append(", plain Lettuce ")
			.append(micros(plain.clientCpuMicros())).append(" (our code ")
			.append(signedMicros(ours.clientCpuMicros() - plain.clientCpuMicros())).append(", ")
			.append(signedPercent(ours.clientCpuMicros() / plain.clientCpuMicros() - 1))
			.append("); Redis CPU per decision: ours ").append(micros(ours.redisCpuMicros())).append(", plain ")
			.append(micros(plain.redisCpuMicros())).append('.');
		double redisDifference = ours.redisCpuMicros() / plain.redisCpuMicros() - 1;
		if (threads == 1 && Math.abs(redisDifference) > 0.25) {
			note.append(" With one thread both send the same command one at a time, yet Redis spent ")
				.append(percent(Math.abs(redisDifference))).append(redisDifference > 0 ? " more" : " less")
				.append(" CPU per decision during ours' intervals: that points at the machine (other processes, "
						+ "cold caches) disturbing one of the two, not at our client.");
		}
		note.append(close(ours, plain, threads, target, "plain Lettuce", perCpu));
		return note.toString();
	}

	String planPath(PlanDecisions.Path path, int threads, Spread ratio, double target) {
		PlanDecisions.Result plans = this.results.plans;
		double pathMicros = plans.clientCpuMicros(path, threads).median();
		double plainMicros = plans.clientCpuMicros(PlanDecisions.Path.PLAIN, threads).median();
		return header("Enforcer, " + path.label() + " vs plain policy, " + threads(threads), ratio, target)
				+ " Client CPU per decision: " + micros(pathMicros) + " against " + micros(plainMicros) + " ("
				+ signedMicros(pathMicros - plainMicros) + ", " + signedPercent(pathMicros / plainMicros - 1)
				+ "); per client CPU-second " + plans.cpuRatio(path, threads).format(Spread::ratio)
				+ " of the plain policy's decisions. A ratio whose range spans the target is within this run's noise.";
	}

	String oursVsBucket4j(int threads, Spread ratio, double target) {
		CellCost ours = cost(Kind.OURS, Algorithm.TOKEN_BUCKET, threads);
		CellCost bucket4j = cost(Kind.BUCKET4J, Algorithm.TOKEN_BUCKET, threads);
		Spread perCpu = this.results.decisions.cpuRatio(
				new DecisionBenchmark.Cell(Kind.OURS, Algorithm.TOKEN_BUCKET, threads),
				new DecisionBenchmark.Cell(Kind.BUCKET4J, Algorithm.TOKEN_BUCKET, threads));
		StringBuilder note = new StringBuilder();
		note.append(header("Ours (token-bucket) vs Bucket4j, " + threads(threads), ratio, target));
		note.append(saturation(ours, bucket4j, "Bucket4j"));
		note.append(" Per decision, ours spent ").append(micros(ours.clientCpuMicros())).append(" of client CPU and ")
			.append(micros(ours.redisCpuMicros())).append(" of Redis CPU; Bucket4j ")
			.append(micros(bucket4j.clientCpuMicros())).append(" and ").append(micros(bucket4j.redisCpuMicros()))
			.append(". Plain Lettuce sending our script made ")
			.append(ratio(Kind.PLAIN_LETTUCE, Kind.BUCKET4J, threads).format(Spread::ratio))
			.append(" Bucket4j's rate in the same runs, the most any client of this script could show here.");
		note.append(close(ours, bucket4j, threads, target, "Bucket4j", perCpu));
		return note.toString();
	}

	String http(HttpOverhead.SampleApp app, Spread ratio, double target) {
		HttpOverhead.Result http = this.results.http;
		double unlimited = http.spread(app, false, WrkRun::requestsPerSecond).median();
		double limited = http.spread(app, true, WrkRun::requestsPerSecond).median();
		double unlimitedCpu = http.spread(app, false, WrkRun::appCpuMicrosPerRequest).median();
		double limitedCpu = http.spread(app, true, WrkRun::appCpuMicrosPerRequest).median();
		double addedWall = 1e6 / limited - 1e6 / unlimited;
		double allowedWall = (1 / target - 1) * 1e6 / unlimited;
		StringBuilder note = new StringBuilder();
		note.append(header("HTTP limited vs unlimited, " + app.label(), ratio, target));
		double busy = http.spread(app, true, WrkRun::clientCpuBusy).median();
		if (Double.isNaN(busy) || busy >= CellCost.SATURATED) {
			note.append(" wrk and the sample app share one CPU")
				.append(Double.isNaN(busy) ? "" : ", busy " + percent(busy) + " during the limited runs")
				.append(", so each request's CPU time sets the rate: a limited request took ")
				.append(micros(1e6 / limited)).append(" of it, an unlimited one ").append(micros(1e6 / unlimited))
				.append(", so limiting adds ").append(micros(addedWall)).append(" per request where the target allows ")
				.append(micros(allowedWall)).append('.');
		}
		else {
			note.append(" The CPU of wrk and the sample app was only ").append(percent(busy))
				.append(" busy during the limited runs, so waiting (for Redis, for threads) rather than CPU set the "
						+ "rate: a limited request took ")
				.append(micros(1e6 / limited)).append(" of wall time per request, an unlimited one ")
				.append(micros(1e6 / unlimited)).append(", ").append(micros(addedWall))
				.append(" more where the target allows ").append(micros(allowedWall)).append('.');
		}
		if (app.leased()) {
			note.append(" Leased, the limited path made ")
				.append(String.format(Locale.ROOT, "%.4f",
						http.spread(app, true, WrkRun::scriptCallsPerRequest).median()))
				.append(" Redis script calls per request; the sample app's own process spent ")
				.append(micros(limitedCpu - unlimitedCpu)).append(" more CPU per limited request (")
				.append(micros(limitedCpu)).append(" against ").append(micros(unlimitedCpu))
				.append("): the rest of the limited path (filter, key, lease, headers, metrics).");
		}
		else if (!Double.isNaN(limitedCpu)) {
			note.append(" Of that, the sample app's own process spent ").append(micros(limitedCpu - unlimitedCpu))
				.append(" more per limited request (").append(micros(limitedCpu)).append(" against ")
				.append(micros(unlimitedCpu)).append(")");
			CellCost decision = cost(Kind.OURS, Algorithm.TOKEN_BUCKET, 16);
			note.append("; one decision of our backend alone used ").append(micros(decision.clientCpuMicros()))
				.append(" of client CPU in the decision benchmark (token-bucket, 16 threads), so about ")
				.append(micros(limitedCpu - unlimitedCpu - decision.clientCpuMicros()))
				.append(" per request is the rest of the limited path (filter, key, headers, metrics")
				.append(app.observed() ? ", Boot's observation of the Redis command" : "")
				.append(").");
		}
		if (app == HttpOverhead.SampleApp.SERVLET) {
			double offLimited = http.spread(HttpOverhead.SampleApp.SERVLET_UNOBSERVED, true,
					WrkRun::requestsPerSecond).median();
			double offUnlimited = http.spread(HttpOverhead.SampleApp.SERVLET_UNOBSERVED, false,
					WrkRun::requestsPerSecond).median();
			double offAdded = 1e6 / offLimited - 1e6 / offUnlimited;
			Spread offOverOn = http.offOverOn(true);
			note.append(" With Boot's Lettuce observation off, limiting added ").append(micros(offAdded))
				.append(" per request");
			if (offOverOn.min() <= 1 && offOverOn.max() >= 1) {
				note.append(", but the rounds disagree on which app's limited path was faster (off / on ")
					.append(offOverOn.format(Spread::ratio)).append("; even the unlimited path, which sends no Redis "
							+ "command, measured ")
					.append(http.offOverOn(false).format(Spread::ratio))
					.append("): this run cannot tell the observation's cost from noise.");
			}
			else {
				note.append(": the observation costs ").append(micros(addedWall - offAdded))
					.append(" of each limited request (off / on limited requests/s ")
					.append(offOverOn.format(Spread::ratio)).append(").");
			}
		}
		note.append(" What would close it: ").append(micros(addedWall - allowedWall))
			.append(" less CPU per limited request on the app's side");
		note.append('.');
		return note.toString();
	}

	String usecPerCall(Algorithm algorithm, Spread usec, double target) {
		DecisionBenchmark.Decisions decisions = this.results.decisions;
		Map<String, Spread> commands = decisions.usecByCommand(Kind.OURS, algorithm);
		double inCommands = commands.values().stream().mapToDouble(Spread::median).sum();
		double lua = usec.median() - inCommands;
		double gap = usec.median() - target;
		List<String> parts = new ArrayList<>();
		commands.forEach((name, spread) -> parts.add(name.toUpperCase(Locale.ROOT) + " " + micros(spread.median())));
		StringBuilder note = new StringBuilder();
		note.append("**Redis time per ").append(algorithm.id()).append(" decision: ")
			.append(usec.format(MissNotes::micros)).append(" (target at most ").append(micros(target)).append(").** ");
		note.append("Of each call, the commands the script calls took ").append(micros(inCommands)).append(" (")
			.append(String.join(", ", parts)).append("), leaving ").append(micros(lua))
			.append(" for the rest: the Lua interpreter running the script (reading ARGV, arithmetic, building the "
					+ "reply) and Redis' scripting machinery around it.");
		Spread plain = decisions.usecPerScriptCall(Kind.PLAIN_LETTUCE, algorithm);
		if (plain.count() > 0) {
			note.append(" Plain Lettuce's calls of the same script took ").append(micros(plain.median()));
			if (Math.abs(plain.median() / usec.median() - 1) < 0.2) {
				note.append(", about the same: this is the script's cost, not our client's");
			}
			note.append('.');
		}
		Spread busy = decisions.spread(Kind.OURS, algorithm, Measurement::redisCpuBusy);
		Spread own = decisions.spread(Kind.OURS, algorithm, Measurement::redisCpuShare);
		if (busy.median() - own.median() > 0.2) {
			note.append(" These are wall-clock microseconds inside the call: over the same intervals Redis' CPU was busy ")
				.append(percent(busy.median())).append(", Redis itself ").append(percent(own.median()))
				.append(" of it, so other processes held that CPU part of the time and a call they interrupted counts "
						+ "their time too; the least disturbed run measured ")
				.append(micros(usec.min())).append('.');
		}
		note.append(" What would close it: ").append(micros(gap)).append(" less per call, which is ");
		if (gap <= lua) {
			note.append(percent(gap / lua)).append(" of that rest: less work in the script's Lua per call would do.");
		}
		else {
			note.append("more than all of that rest: the commands themselves would have to get cheaper or fewer.");
		}
		return note.toString();
	}

	String memory(String algorithm, MemoryPerKey.Result memory, double target) {
		int keyLength = memory.exampleKey().length();
		double over = memory.memoryUsage() - target;
		return "**Memory per " + algorithm + " key: " + String.format(Locale.ROOT, "%.0f", memory.memoryUsage())
				+ " bytes (target at most " + String.format(Locale.ROOT, "%.0f", target) + ").** The key's name alone, `"
				+ memory.exampleKey() + "`, is " + keyLength + " bytes of it. What would close it: "
				+ String.format(Locale.ROOT, "%.0f", over) + " bytes less, for instance a name that much shorter "
				+ "(`ratelimit.key-prefix`, the policy name).";
	}

	String denyCache(DenyCacheCalls.Result cached, double target) {
		double floor = cached.allowed() / (double) cached.denied();
		return "**Deny cache: " + String.format(Locale.ROOT, "%.4f", cached.callsPerDenied())
				+ " Redis calls per denied request (target at most " + target + ").** Each of the " + cached.allowed()
				+ " clients costs at least one call to be denied before the cache can answer for it, so this workload "
				+ "cannot go below " + String.format(Locale.ROOT, "%.4f", floor) + "; the calls beyond that are the "
				+ "cache's one-second answers running out. What would close it: more denied requests per client.";
	}

	private CellCost cost(Kind kind, Algorithm algorithm, int threads) {
		return CellCost.of(this.results.decisions, kind, algorithm, threads);
	}

	private Spread ratio(Kind numerator, Kind denominator, int threads) {
		return this.results.decisions.ratio(new DecisionBenchmark.Cell(numerator, Algorithm.TOKEN_BUCKET, threads),
				new DecisionBenchmark.Cell(denominator, Algorithm.TOKEN_BUCKET, threads));
	}

	String httpCpu(HttpOverhead.SampleApp app, Spread ratio, double target) {
		HttpOverhead.Result http = this.results.http;
		double unlimitedCpu = http.spread(app, false, WrkRun::appCpuMicrosPerRequest).median();
		double limitedCpu = http.spread(app, true, WrkRun::appCpuMicrosPerRequest).median();
		double calls = http.spread(app, true, WrkRun::scriptCallsPerRequest).median();
		return "**HTTP app CPU per request, " + app.label() + ": " + ratio.format(Spread::ratio) + " of the unlimited "
				+ "path's (target at most " + Spread.ratio(target) + ").** A limited request took " + micros(limitedCpu)
				+ " of the app's CPU, an unlimited one " + micros(unlimitedCpu) + " (" + micros(limitedCpu - unlimitedCpu)
				+ " more), with " + String.format(Locale.ROOT, "%.4f", calls) + " Redis script calls per request.";
	}

	String leaseThreads(LeaseDecisions.Mode mode, Algorithm algorithm, double oneCpu, double manyCpu, int threads,
			double target) {
		long batch = Objects.requireNonNull(mode.lease(), "a leased mode").batch();
		return "**Leased hot key (batch " + String.format(Locale.ROOT, "%,d", batch) + "), " + algorithm.id()
				+ ": client CPU per decision " + micros(manyCpu) + " at " + threads + " threads against "
				+ micros(oneCpu) + " at 1 thread, " + Spread.ratio(manyCpu / oneCpu) + " (target at most "
				+ Spread.ratio(target) + ").** One renewal is in flight per key on an instance, so it serves at most a "
				+ "batch of the key's permits per round trip: the threads, sharing the client's CPU, run out of a batch "
				+ "within about one round trip and each parks until the next grant and is woken, once per round, which "
				+ "one thread almost never pays (the take itself is one compare-and-set). A larger batch lifts it (the "
				+ "rows of batch " + String.format(Locale.ROOT, "%,d", LeaseDecisions.LARGE_LEASE.batch())
				+ " measure the take with the bound lifted), and raises the leasing bounds with it "
				+ "([leasing.md](leasing.md#when-not-to)).";
	}

	String leaseSpread(LeaseDecisions.Cell cell, Spread ratio) {
		LeaseDecisions.Result leases = this.results.leases;
		double calls = leases.callsPerDecision(cell).median();
		return header("Leased vs exact, " + cell.algorithm().id() + ", " + cell.keys().label() + ", "
				+ threads(cell.threads()), ratio, 1.0) + " Leased decisions made "
				+ String.format(Locale.ROOT, "%.4f", calls) + " Redis calls each (exact: 1); client CPU per decision "
				+ micros(leases.spread(cell, Measurement::clientCpuMicrosPerDecision).median()) + " against "
				+ micros(leases.spread(cell.exact(), Measurement::clientCpuMicrosPerDecision).median())
				+ " exact. Per client CPU-second the ratio was "
				+ leases.leasedOverExactPerCpu(cell).format(Spread::ratio) + ".";
	}

	String jmhLeasedAllocation(JmhDecisions.Cell local) {
		return "**A leased local decision allocates " + JmhDecisions.Measured.bytes(local.bytesPerDecision())
				+ " (target 0).** What it returns is a new `Decision` (its `remaining` and waits are this decision's "
				+ "own) with two `Duration`s of its waits; the take itself (one compare-and-set on the lease in hand) "
				+ "allocates nothing. Reaching 0 needs a decision the caller does not keep (a primitive answer), an "
				+ "API change.";
	}

	String jmhExactAllocation(JmhDecisions.Cell exact, JmhDecisions.Cell plain) {
		return "**An exact decision allocates " + JmhDecisions.Measured.bytes(exact.bytesPerDecision())
				+ " against plain Lettuce's " + JmhDecisions.Measured.bytes(plain.bytesPerDecision())
				+ " for the same script call (target at most the same).** Beyond the call, ours encodes the key and "
				+ "arguments per call (plain Lettuce's are encoded once up front), parses the reply into a "
				+ "`Decision`, and completes a future of its own.";
	}

	private static String header(String what, Spread ratio, double target) {
		return "**" + what + ": " + ratio.format(Spread::ratio) + " (target " + Spread.ratio(target) + ", "
				+ percent(1 - ratio.median() / target) + " short).**";
	}

	/**
	 * Which resource bounded a cell, from how busy each CPU was.
	 */
	private static String saturation(CellCost ours, CellCost other, String otherName) {
		StringBuilder text = new StringBuilder(" In this cell, with ours, the clients' CPU was busy ")
			.append(busy(ours.clientCpuBusy(), ours.clientCpuShare(), "the benchmark JVM"))
			.append(" and Redis' CPU ").append(busy(ours.redisCpuBusy(), ours.redisCpuShare(), "Redis"))
			.append(" (with ").append(otherName).append(": ")
			.append(busy(other.clientCpuBusy(), other.clientCpuShare(), "the JVM")).append("; ")
			.append(busy(other.redisCpuBusy(), other.redisCpuShare(), "Redis")).append("): ");
		if (ours.clientBound()) {
			text.append("the clients' CPU set the rate.");
		}
		else if (ours.redisBound()) {
			text.append("Redis' CPU set the rate.");
		}
		else {
			text.append("neither CPU was saturated, so each thread's wait for its answer set the rate.");
		}
		return text.toString();
	}

	private static String busy(double all, double ours, String who) {
		if (Double.isNaN(all)) {
			return percent(ours) + " by " + who;
		}
		return percent(all) + ", " + percent(ours) + " of it " + who;
	}

	/**
	 * What would close a ratio target's miss: decisions per client CPU-second tell whether our code costs too much
	 * CPU; if it does not, the busy CPUs tell what else was short.
	 */
	private static String close(CellCost ours, CellCost other, int threads, double target, String otherName,
			Spread perCpu) {
		StringBuilder text = new StringBuilder(" Per client CPU-second ours made ").append(perCpu.format(Spread::ratio))
			.append(" of ").append(otherName).append("'s decisions, the ratio the rates would show had both had the "
					+ "same CPU.");
		if (perCpu.median() < target) {
			double allowed = other.clientCpuMicros() / target;
			return text.append(" What would close it: ours at or below ").append(micros(allowed))
				.append(" of client CPU per decision, ").append(micros(ours.clientCpuMicros() - allowed))
				.append(" less than now.")
				.toString();
		}
		text.append(" That meets the target, so our code's CPU is not what fell short: ");
		if (ours.clientBound()) {
			text.append("the clients' CPU set the rate, and the benchmark JVM got ")
				.append(percent(ours.clientCpuShare())).append(" of it in ours' intervals against ")
				.append(percent(other.clientCpuShare())).append(" in ").append(otherName)
				.append("'s, other processes taking the rest.");
		}
		else if (ours.redisBound()) {
			text.append("Redis' CPU set the rate, and Redis got ").append(percent(ours.redisCpuShare()))
				.append(" of it in ours' intervals against ").append(percent(other.redisCpuShare())).append(" in ")
				.append(otherName).append("'s, other processes taking the rest.");
		}
		else {
			text.append("each thread waited ").append(micros(ours.latencyMicros(threads)))
				.append(" per decision with ours against ").append(micros(other.latencyMicros(threads)))
				.append(" with ").append(otherName).append(", time spent waiting rather than working.");
		}
		return text.append(" What would close it: a run on CPUs no other process uses (see the load average).")
			.toString();
	}

	static String threads(int threads) {
		return threads + ((threads == 1) ? " thread" : " threads");
	}

	static String micros(double micros) {
		return String.format(Locale.ROOT, "%.1f µs", micros);
	}

	static String signedMicros(double micros) {
		return String.format(Locale.ROOT, "%+.1f µs", micros);
	}

	static String signedPercent(double share) {
		return String.format(Locale.ROOT, "%+.0f%%", 100 * share);
	}

	static String percent(double share) {
		return String.format(Locale.ROOT, "%.0f%%", 100 * share);
	}

}
