package io.github.ratelimit.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * How busy each of the machine's CPUs was, from {@code /proc/stat}: the work of every process, the benchmark's or
 * not, so that a CPU other processes kept busy shows up beside what the benchmark's own processes used.
 *
 * @param cpus per CPU ({@code "0"}, {@code "1"}, ...), its busy and total time in clock ticks
 */
record CpuUsage(Map<String, long[]> cpus) {

	static CpuUsage now() {
		Map<String, long[]> cpus = new HashMap<>();
		try {
			for (String line : Files.readAllLines(Path.of("/proc/stat"))) {
				if (line.startsWith("cpu") && Character.isDigit(line.charAt(3))) {
					String[] fields = line.trim().split("\\s+");
					long total = 0;
					for (int i = 1; i < fields.length; i++) {
						total += Long.parseLong(fields[i]);
					}
					// idle and iowait
					long idle = Long.parseLong(fields[4]) + Long.parseLong(fields[5]);
					cpus.put(fields[0].substring(3), new long[] { total - idle, total });
				}
			}
		}
		catch (IOException | RuntimeException ex) {
			// not Linux: every share is unknown
		}
		return new CpuUsage(cpus);
	}

	/**
	 * The share of time a CPU was busy between an earlier snapshot and this one.
	 * @param earlier the earlier snapshot
	 * @param cpu the CPU, or {@code null} when the run is not pinned
	 * @return the busy share, NaN when unknown
	 */
	double busySince(CpuUsage earlier, @Nullable String cpu) {
		long[] now = (cpu != null) ? this.cpus.get(cpu) : null;
		long[] before = (cpu != null) ? earlier.cpus.get(cpu) : null;
		if (now == null || before == null || now[1] == before[1]) {
			return Double.NaN;
		}
		return (now[0] - before[0]) / (double) (now[1] - before[1]);
	}

}
