package io.github.ratelimit.benchmarks;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The HTTP cost of the filter: the sample app under {@code wrk}, its limited {@code /api/hello} (with a limit never
 * reached) against its unlimited {@code /api/unlimited}, in interleaved rounds. Traffic goes to 127.0.0.1 only.
 */
final class HttpOverhead {

	/** The limited path's limit, never reached. */
	static final String LIMIT = "1000000000/1h";

	private static final Pattern RATE = Pattern.compile("Requests/sec:\\s+([0-9.]+)");

	private static final Pattern NON_2XX = Pattern.compile("Non-2xx or 3xx responses:\\s+(\\d+)");

	private final String sampleJar;

	private final int redisPort;

	private final int threads;

	private final int connections;

	private final int seconds;

	HttpOverhead(String sampleJar, int redisPort, int threads, int connections, int seconds) {
		this.sampleJar = sampleJar;
		this.redisPort = redisPort;
		this.threads = threads;
		this.connections = connections;
		this.seconds = seconds;
	}

	List<String> sampleCommand(int port) {
		return List.of(javaBin(), "-Xmx512m", "-jar", this.sampleJar, "--server.port=" + port,
				"--server.address=127.0.0.1", "--spring.data.redis.host=127.0.0.1",
				"--spring.data.redis.port=" + this.redisPort, "--sample.embedded-redis=never",
				"--ratelimit.policies.hello.limits=" + LIMIT, "--logging.level.root=WARN");
	}

	List<String> wrkCommand(String url) {
		return List.of("wrk", "-t" + this.threads, "-c" + this.connections, "-d" + this.seconds + "s", "--latency",
				url);
	}

	/**
	 * Starts the sample app, warms both paths twice, then runs {@code rounds} interleaved pairs.
	 * @param rounds the pairs of runs
	 * @return every run
	 */
	Result measure(int rounds) {
		int port = freePort();
		Process app;
		try {
			app = new ProcessBuilder(sampleCommand(port)).redirectErrorStream(true)
				.redirectOutput(new File(System.getProperty("java.io.tmpdir"), "ratelimit-benchmarks-sample.log"))
				.start();
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not start the sample app " + this.sampleJar, ex);
		}
		try {
			String base = "http://127.0.0.1:" + port;
			awaitUp(base + "/api/unlimited", app);
			String limited = base + "/api/hello";
			String unlimited = base + "/api/unlimited";
			for (int warmUp = 0; warmUp < 2; warmUp++) {
				wrk(unlimited);
				wrk(limited);
			}
			List<Run> runs = new ArrayList<>();
			for (int round = 0; round < rounds; round++) {
				boolean limitedFirst = round % 2 == 1;
				runs.add(limitedFirst ? wrk(limited) : wrk(unlimited));
				runs.add(limitedFirst ? wrk(unlimited) : wrk(limited));
			}
			return new Result(runs);
		}
		finally {
			app.destroy();
			try {
				if (!app.waitFor(15, TimeUnit.SECONDS)) {
					app.destroyForcibly();
				}
			}
			catch (InterruptedException ex) {
				app.destroyForcibly();
				Thread.currentThread().interrupt();
			}
		}
	}

	private Run wrk(String url) {
		String output = Processes.run(wrkCommand(url), this.seconds + 30L);
		Matcher rate = RATE.matcher(output);
		if (!rate.find()) {
			throw new IllegalStateException("Unexpected wrk output: " + output);
		}
		Matcher non2xx = NON_2XX.matcher(output);
		return new Run(url.endsWith("/api/hello"), Double.parseDouble(rate.group(1)), percentile(output, "50%"),
				percentile(output, "99%"), non2xx.find() ? Long.parseLong(non2xx.group(1)) : 0);
	}

	/**
	 * A latency percentile of wrk's --latency distribution, in milliseconds.
	 */
	static double percentile(String wrkOutput, String percentile) {
		Matcher matcher = Pattern.compile("^\\s*" + Pattern.quote(percentile) + "\\s+([0-9.]+)(us|ms|s)\\s*$",
				Pattern.MULTILINE).matcher(wrkOutput);
		if (!matcher.find()) {
			throw new IllegalStateException("No " + percentile + " latency in wrk output: " + wrkOutput);
		}
		double value = Double.parseDouble(matcher.group(1));
		return switch (matcher.group(2)) {
			case "us" -> value / 1000;
			case "s" -> value * 1000;
			default -> value;
		};
	}

	private static void awaitUp(String url, Process app) {
		HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
		long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
		while (System.nanoTime() < deadline) {
			if (!app.isAlive()) {
				throw new IllegalStateException("The sample app exited with " + app.exitValue()
						+ "; see ratelimit-benchmarks-sample.log in " + System.getProperty("java.io.tmpdir"));
			}
			try {
				HttpResponse<Void> response = client.send(HttpRequest.newBuilder(URI.create(url)).build(),
						HttpResponse.BodyHandlers.discarding());
				if (response.statusCode() == 200) {
					return;
				}
			}
			catch (IOException ex) {
				// not up yet
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted waiting for the sample app", ex);
			}
			sleep(250);
		}
		throw new IllegalStateException("The sample app did not answer " + url + " within 90 s");
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private static int freePort() {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new IllegalStateException("No free port", ex);
		}
	}

	private static String javaBin() {
		return System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
	}

	/**
	 * One wrk run.
	 *
	 * @param limited whether it hit the limited path
	 * @param requestsPerSecond throughput
	 * @param p50Millis median latency
	 * @param p99Millis 99th percentile latency
	 * @param non2xx responses that were not 2xx or 3xx
	 */
	record Run(boolean limited, double requestsPerSecond, double p50Millis, double p99Millis, long non2xx) {

	}

	/**
	 * Every measured run, in the order run.
	 *
	 * @param runs the runs
	 */
	record Result(List<Run> runs) {

		double meanRate(boolean limited) {
			return mean(limited, Run::requestsPerSecond);
		}

		double meanP50(boolean limited) {
			return mean(limited, Run::p50Millis);
		}

		double meanP99(boolean limited) {
			return mean(limited, Run::p99Millis);
		}

		long non2xx() {
			return this.runs.stream().mapToLong(Run::non2xx).sum();
		}

		private double mean(boolean limited, ToDoubleFunction<Run> value) {
			return this.runs.stream().filter((run) -> run.limited() == limited).mapToDouble(value).average().orElse(0);
		}

	}

}
