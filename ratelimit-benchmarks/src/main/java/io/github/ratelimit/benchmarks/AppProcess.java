package io.github.ratelimit.benchmarks;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The apps the HTTP cells start (the samples, the gateway): a JVM per app, its output in a log file of the temporary
 * directory, up once it answers 200 on a URL, stopped at the end.
 */
final class AppProcess {

	/** The longest an app may take to start, on a busy machine. */
	private static final Duration STARTUP = Duration.ofSeconds(180);

	private AppProcess() {
	}

	/**
	 * Starts an app.
	 * @param command its command line
	 * @param name its name, which names its log file
	 * @return the process
	 */
	static Process start(List<String> command, String name) {
		try {
			return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(logFile(name)).start();
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not start " + command, ex);
		}
	}

	static void stop(Process app) {
		app.destroy();
		try {
			if (!app.waitFor(15, TimeUnit.SECONDS)) {
				app.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
			}
		}
		catch (InterruptedException ex) {
			app.destroyForcibly();
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * Waits until the app answers 200 on a URL.
	 * @param url the URL
	 * @param process the app
	 * @param name its name, as it was started
	 */
	static void awaitUp(String url, Process process, String name) {
		HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
		long deadline = System.nanoTime() + STARTUP.toNanos();
		while (System.nanoTime() - deadline < 0) {
			if (!process.isAlive()) {
				throw new IllegalStateException("The app " + name + " exited with " + process.exitValue() + "; see "
						+ logFile(name));
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
				throw new IllegalStateException("Interrupted waiting for the app " + name, ex);
			}
			try {
				Thread.sleep(250);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted waiting for the app " + name, ex);
			}
		}
		throw new IllegalStateException("The app " + name + " did not answer " + url + " within "
				+ STARTUP.toSeconds() + " s; see " + logFile(name));
	}

	static String get(String url) {
		return send(url).body();
	}

	static int status(String url) {
		return send(url).statusCode();
	}

	private static HttpResponse<String> send(String url) {
		try {
			return HttpClient.newHttpClient()
				.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).build(),
						HttpResponse.BodyHandlers.ofString());
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not read " + url, ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted reading " + url, ex);
		}
	}

	static File logFile(String name) {
		return new File(System.getProperty("java.io.tmpdir"), "ratelimit-benchmarks-" + name + ".log");
	}

	static String javaBin() {
		return System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
	}

}
