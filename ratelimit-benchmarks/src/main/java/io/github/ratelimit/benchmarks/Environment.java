package io.github.ratelimit.benchmarks;

import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.stream.Collectors;

import io.github.bucket4j.redis.lettuce.Bucket4jLettuce;
import io.lettuce.core.RedisClient;

/**
 * The machine and versions a run measured on.
 *
 * @param started when the measurements started (UTC)
 * @param command the command that produced the run, as typed
 * @param loadBeforeBuild /proc/loadavg when that command started, before it built anything
 * @param loadAtStart /proc/loadavg when the measurements started
 * @param loadAtEnd /proc/loadavg when they ended
 * @param cpus the machine's CPUs
 * @param jvmCpus the CPUs the benchmark JVM may run on
 * @param cpuModel the CPU model
 * @param memory total memory
 * @param jdk the JDK
 * @param gc the benchmark JVM's garbage collectors
 * @param pinning which process runs on which CPU
 * @param redisServer the Redis server binary's version line
 * @param redis the version the Redis server reports
 * @param lettuce the Lettuce jar
 * @param bucket4j the Bucket4j Lettuce jar
 * @param redisBenchmark redis-benchmark's version line
 * @param wrk wrk's version line
 */
record Environment(Instant started, String command, String loadBeforeBuild, String loadAtStart, String loadAtEnd,
		int cpus, int jvmCpus, String cpuModel, String memory, String jdk, String gc, String pinning,
		String redisServer, String redis, String lettuce, String bucket4j, String redisBenchmark, String wrk) {

	static Environment now(String command, String loadBeforeBuild, CpuPinning pinning, String redisServer) {
		return new Environment(Instant.now().truncatedTo(ChronoUnit.SECONDS), command, loadBeforeBuild, loadAverage(),
				"", machineCpus(), Runtime.getRuntime().availableProcessors(), procField("/proc/cpuinfo", "model name"),
				procField("/proc/meminfo", "MemTotal"),
				System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"),
				ManagementFactory.getGarbageCollectorMXBeans().stream().map(GarbageCollectorMXBean::getName)
					.collect(Collectors.joining(", ")),
				pinning.describe(), redisServer, "", jar(RedisClient.class), jar(Bucket4jLettuce.class),
				Processes.firstLine(List.of("redis-benchmark", "--version")),
				Processes.firstLine(List.of("sh", "-c", "wrk -v 2>&1 | head -1")));
	}

	Environment finished(String redisVersion) {
		return new Environment(this.started, this.command, this.loadBeforeBuild, this.loadAtStart, loadAverage(),
				this.cpus, this.jvmCpus, this.cpuModel, this.memory, this.jdk, this.gc, this.pinning, this.redisServer,
				redisVersion, this.lettuce, this.bucket4j, this.redisBenchmark, this.wrk);
	}

	static String loadAverage() {
		try {
			String[] parts = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
			return parts[0] + ", " + parts[1] + ", " + parts[2];
		}
		catch (IOException ex) {
			return "unknown";
		}
	}

	private static int machineCpus() {
		try {
			return (int) Files.readAllLines(Path.of("/proc/cpuinfo")).stream()
				.filter((line) -> line.startsWith("processor"))
				.count();
		}
		catch (IOException ex) {
			return Runtime.getRuntime().availableProcessors();
		}
	}

	private static String procField(String file, String field) {
		try {
			for (String line : Files.readAllLines(Path.of(file))) {
				if (line.startsWith(field)) {
					return line.substring(line.indexOf(':') + 1).trim();
				}
			}
		}
		catch (IOException ex) {
			// not Linux
		}
		return "unknown";
	}

	/**
	 * The name of the jar a class was loaded from, its version included.
	 * @param type the class
	 * @return the jar's name without {@code .jar}
	 */
	static String jar(Class<?> type) {
		String location = type.getProtectionDomain().getCodeSource().getLocation().getPath();
		return location.substring(location.lastIndexOf('/') + 1).replace(".jar", "");
	}

}
