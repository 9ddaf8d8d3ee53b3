package io.github.ratelimit.sample;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.ratelimit.test.ClockShiftAgent;
import io.github.ratelimit.test.TestRedis;

/**
 * One instance of the sample in a JVM of its own whose wall clock is shifted by {@link ClockShiftAgent}, as a server
 * with a skewed clock would be. Its output goes to a file under {@code target/}.
 */
final class ShiftedClockSample implements AutoCloseable {

	private static final Duration STARTUP_TIMEOUT = Duration.ofMinutes(3);

	private final Process process;

	private final int port;

	private final Duration offset;

	private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

	private ShiftedClockSample(Process process, int port, Duration offset) {
		this.process = process;
		this.port = port;
		this.offset = offset;
	}

	/**
	 * Starts an instance; {@link #awaitReady()} waits until it answers.
	 * @param offset how far its clock is shifted
	 * @param properties {@code name=value} pairs on its command line
	 * @return the starting instance
	 */
	static ShiftedClockSample start(Duration offset, String... properties) throws IOException {
		Path target = Path.of("target");
		int port = TestRedis.freePort();
		List<String> all = new ArrayList<>(List.of(properties));
		all.add("server.port=" + port);
		all.add("spring.main.banner-mode=off");
		List<String> command = ClockShiftAgent.javaCommand(offset, SampleApplication.class.getName(),
				RunningSample.arguments(all.toArray(String[]::new)));
		File log = target.resolve("shifted-clock-sample-" + port + ".log").toFile();
		Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log).start();
		return new ShiftedClockSample(process, port, offset);
	}

	/**
	 * Waits until the instance answers its health endpoint.
	 * @return this instance
	 */
	ShiftedClockSample awaitReady() throws InterruptedException {
		long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
		while (System.nanoTime() - deadline < 0) {
			if (!this.process.isAlive()) {
				throw new IllegalStateException("The instance on port " + this.port + " exited with "
						+ this.process.exitValue() + "; see target/shifted-clock-sample-" + this.port + ".log");
			}
			try {
				if (get("/actuator/health").statusCode() == 200) {
					return this;
				}
			}
			catch (UncheckedIOException ex) {
				// not listening yet
			}
			Thread.sleep(250);
		}
		throw new IllegalStateException("The instance on port " + this.port + " did not start within "
				+ STARTUP_TIMEOUT.toMinutes() + " minutes");
	}

	Duration offset() {
		return this.offset;
	}

	/**
	 * A GET request.
	 * @param path the path
	 * @param headers header name and value pairs
	 * @return the response
	 */
	HttpResponse<String> get(String path, String... headers) {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + path))
			.timeout(Duration.ofSeconds(30));
		if (headers.length > 0) {
			request.headers(headers);
		}
		try {
			return this.client.send(request.build(), HttpResponse.BodyHandlers.ofString());
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * Stops the instance (gracefully, then forcibly) and waits until its process has exited.
	 */
	@Override
	public void close() {
		this.process.destroy();
		try {
			if (!this.process.waitFor(30, TimeUnit.SECONDS)) {
				this.process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
			}
		}
		catch (InterruptedException ex) {
			this.process.destroyForcibly();
			Thread.currentThread().interrupt();
		}
	}

}
