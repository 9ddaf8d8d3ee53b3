package io.github.ratelimit.test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A JVM of its own that a test drives one command a line, reading one answer a line: the test's side
 * ({@link #start}, {@link #ask}) and the JVM's ({@link #serve}).
 */
public final class CommandedJvm implements AutoCloseable {

	private static final String ANSWER = "= ";

	private final Process process;

	private final Writer commands;

	private final BufferedReader answers;

	private CommandedJvm(Process process) {
		this.process = process;
		this.commands = process.outputWriter(StandardCharsets.UTF_8);
		this.answers = process.inputReader(StandardCharsets.UTF_8);
	}

	/**
	 * The command that runs a main class of the test class path in a JVM of its own, small and quick to start.
	 * @param options JVM options before the class path, such as a {@code -javaagent}
	 * @param mainClass the main class
	 * @param arguments its arguments
	 * @return the command
	 */
	public static List<String> javaCommand(List<String> options, String mainClass, String... arguments) {
		List<String> command = new ArrayList<>();
		command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
		command.addAll(options);
		command.addAll(List.of("-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp",
				System.getProperty("java.class.path"), mainClass));
		command.addAll(List.of(arguments));
		return command;
	}

	/**
	 * Starts a JVM, its standard error going to a log file.
	 * @param command the command ({@link #javaCommand})
	 * @param log where its standard error goes
	 * @return the started JVM
	 */
	public static CommandedJvm start(List<String> command, Path log) throws IOException {
		return new CommandedJvm(new ProcessBuilder(command).redirectError(log.toFile()).start());
	}

	/**
	 * Sends a command and waits for its answer.
	 * @param command the command, one line
	 * @return the answer
	 */
	public String ask(String command) {
		try {
			this.commands.write(command + "\n");
			this.commands.flush();
			String line;
			while ((line = this.answers.readLine()) != null) {
				if (line.startsWith(ANSWER)) {
					return line.substring(ANSWER.length());
				}
			}
			throw new IllegalStateException("The JVM ended before answering '" + command + "'");
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * The JVM's process id, for signals.
	 * @return the pid
	 */
	public long pid() {
		return this.process.pid();
	}

	@Override
	public void close() throws InterruptedException {
		this.process.destroy();
		if (!this.process.waitFor(30, TimeUnit.SECONDS)) {
			this.process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
		}
	}

	/**
	 * The JVM's side: answers each command read from standard input on standard output until standard input ends,
	 * everything else printed from now on going to standard error.
	 * @param answering answers a command
	 */
	public static void serve(Answering answering) throws Throwable {
		PrintStream answers = System.out;
		System.setOut(System.err);
		BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
		String command;
		while ((command = commands.readLine()) != null) {
			answers.println(ANSWER + answering.answer(command));
			answers.flush();
		}
	}

	/**
	 * Answers a command, in the JVM of its own.
	 */
	@FunctionalInterface
	public interface Answering {

		/**
		 * Answers a command.
		 * @param command the command
		 * @return the answer, one line
		 */
		String answer(String command) throws Throwable;

	}

}
