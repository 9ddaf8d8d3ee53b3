package io.github.ratelimit.benchmarks;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs an external command to completion, bounded in time, and returns what it printed.
 */
final class Processes {

	private Processes() {
	}

	static String run(List<String> command, long timeoutSeconds) {
		try {
			Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
			byte[] output;
			try {
				if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
					throw new IllegalStateException("Timed out after " + timeoutSeconds + " s: " + command);
				}
				output = process.getInputStream().readAllBytes();
			}
			finally {
				process.destroyForcibly();
			}
			return new String(output, StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not run " + command, ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted running " + command, ex);
		}
	}

	/**
	 * The first line a command prints, or {@code unknown} when it cannot run.
	 * @param command the command
	 * @return its first line
	 */
	static String firstLine(List<String> command) {
		try {
			String output = run(command, 10).strip();
			int newline = output.indexOf('\n');
			return (newline < 0) ? output : output.substring(0, newline);
		}
		catch (RuntimeException ex) {
			return "unknown";
		}
	}

}
