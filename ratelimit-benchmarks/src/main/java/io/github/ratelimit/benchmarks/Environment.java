package io.github.ratelimit.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;

import io.github.bucket4j.redis.lettuce.Bucket4jLettuce;
import io.lettuce.core.RedisClient;

/**
 * The machine and versions a run measured on.
 *
 * @param started when the run started (UTC)
 * @param loadAtStart /proc/loadavg when it started
 * @param loadAtEnd /proc/loadavg when it ended
 * @param cpus available processors
 * @param cpuModel the CPU model
 * @param memory total memory
 * @param jdk the JDK
 * @param redis the Redis server version
 * @param lettuce the Lettuce jar
 * @param bucket4j the Bucket4j Lettuce jar
 * @param redisBenchmark redis-benchmark's version line
 * @param wrk wrk's version line
 */
record Environment(Instant started, String loadAtStart, String loadAtEnd, int cpus, String cpuModel, String memory,
		String jdk, String redis, String lettuce, String bucket4j, String redisBenchmark, String wrk) {

	static Environment now() {
		return new Environment(Instant.now().truncatedTo(ChronoUnit.SECONDS), loadAverage(), "", 
				Runtime.getRuntime().availableProcessors(), procField("/proc/cpuinfo", "model name"),
				procField("/proc/meminfo", "MemTotal"),
				System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"), "",
				jar(RedisClient.class), jar(Bucket4jLettuce.class),
				Processes.firstLine(List.of("redis-benchmark", "--version")),
				Processes.firstLine(List.of("sh", "-c", "wrk -v 2>&1 | head -1")));
	}

	Environment finished(String redisVersion) {
		return new Environment(this.started, this.loadAtStart, loadAverage(), this.cpus, this.cpuModel, this.memory,
				this.jdk, redisVersion, this.lettuce, this.bucket4j, this.redisBenchmark, this.wrk);
	}

	private static String loadAverage() {
		try {
			String[] parts = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
			return parts[0] + ", " + parts[1] + ", " + parts[2];
		}
		catch (IOException ex) {
			return "unknown";
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

	private static String jar(Class<?> type) {
		String location = type.getProtectionDomain().getCodeSource().getLocation().getPath();
		return location.substring(location.lastIndexOf('/') + 1).replace(".jar", "");
	}

}
