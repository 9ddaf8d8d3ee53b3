package io.github.ratelimit.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The CPU time a process has used so far, from {@code /proc/<pid>/stat} (user plus system time).
 */
final class ProcessCpu {

	private static final double TICKS_PER_SECOND = ticksPerSecond();

	private ProcessCpu() {
	}

	/**
	 * The CPU seconds a process has used.
	 * @param pid the process
	 * @return the seconds, or NaN where {@code /proc} cannot tell
	 */
	static double seconds(long pid) {
		try {
			String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
			// the command name in brackets may hold spaces: count fields after its closing bracket
			String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
			return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) / TICKS_PER_SECOND;
		}
		catch (IOException | RuntimeException ex) {
			return Double.NaN;
		}
	}

	private static double ticksPerSecond() {
		try {
			return Double.parseDouble(Processes.firstLine(List.of("getconf", "CLK_TCK")));
		}
		catch (NumberFormatException ex) {
			return 100;
		}
	}

}
