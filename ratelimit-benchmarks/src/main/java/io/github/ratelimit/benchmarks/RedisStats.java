package io.github.ratelimit.benchmarks;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What Redis reported about its work at one moment: per command, calls and microseconds spent executing them
 * ({@code INFO commandstats}; commands a script calls are counted under their own names as well as inside the
 * script's), and the CPU time of the server process ({@code INFO cpu}).
 *
 * @param commands per command name, its calls and microseconds
 * @param cpuSeconds user plus system CPU seconds of the server
 */
record RedisStats(Map<String, Command> commands, double cpuSeconds) {

	private static final Pattern COMMAND = Pattern.compile("^cmdstat_([^:]+):calls=(\\d+),usec=(\\d+)",
			Pattern.MULTILINE);

	private static final Pattern CPU = Pattern.compile("^used_cpu_(sys|user):([0-9.]+)\\s*$", Pattern.MULTILINE);

	static RedisStats parse(String commandStats, String cpu) {
		Map<String, Command> commands = new LinkedHashMap<>();
		Matcher command = COMMAND.matcher(commandStats);
		while (command.find()) {
			commands.put(command.group(1), new Command(Long.parseLong(command.group(2)),
					Long.parseLong(command.group(3))));
		}
		double seconds = 0;
		Matcher used = CPU.matcher(cpu);
		while (used.find()) {
			seconds += Double.parseDouble(used.group(2));
		}
		return new RedisStats(commands, seconds);
	}

	/**
	 * What Redis did between an earlier snapshot and this one.
	 * @param earlier the earlier snapshot
	 * @param seconds the wall-clock seconds between them
	 * @return the difference
	 */
	Delta since(RedisStats earlier, double seconds) {
		Map<String, Command> commands = new LinkedHashMap<>();
		this.commands.forEach((name, now) -> {
			Command before = earlier.commands.getOrDefault(name, new Command(0, 0));
			if (now.calls() > before.calls()) {
				commands.put(name, new Command(now.calls() - before.calls(), now.usec() - before.usec()));
			}
		});
		return new Delta(commands, this.cpuSeconds - earlier.cpuSeconds, seconds);
	}

	/**
	 * One command's counters.
	 *
	 * @param calls the calls
	 * @param usec microseconds spent executing them
	 */
	record Command(long calls, long usec) {

	}

	/**
	 * What Redis did over an interval.
	 *
	 * @param commands per command name, its calls and microseconds in the interval
	 * @param cpuSeconds the server's CPU seconds in the interval
	 * @param seconds the interval's wall-clock seconds
	 */
	record Delta(Map<String, Command> commands, double cpuSeconds, double seconds) {

		/** Script calls: EVALSHA and the EVAL that follows a NOSCRIPT. */
		long scriptCalls() {
			return calls("evalsha") + calls("eval");
		}

		/**
		 * Microseconds Redis spent inside one script call, on average ({@code usec_per_call} over the interval).
		 * @return the microseconds, or NaN without script calls
		 */
		double usecPerScriptCall() {
			long calls = scriptCalls();
			return (calls > 0) ? (usec("evalsha") + usec("eval")) / (double) calls : Double.NaN;
		}

		/**
		 * The share of one CPU the server used.
		 * @return CPU seconds per second
		 */
		double cpuShare() {
			return (this.seconds > 0) ? this.cpuSeconds / this.seconds : Double.NaN;
		}

		long calls(String command) {
			Command counters = this.commands.get(command);
			return (counters != null) ? counters.calls() : 0;
		}

		long usec(String command) {
			Command counters = this.commands.get(command);
			return (counters != null) ? counters.usec() : 0;
		}

	}

}
