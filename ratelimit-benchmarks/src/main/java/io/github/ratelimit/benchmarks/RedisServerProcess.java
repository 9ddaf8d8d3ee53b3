package io.github.ratelimit.benchmarks;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A {@code redis-server} process started by the benchmark on a free loopback port, persistence off, pinned to the
 * CPU the run gives Redis; stopped by {@link #close()} or, failing that, when the JVM exits.
 */
final class RedisServerProcess implements OwnRedis {

	private static final Duration STARTUP = Duration.ofSeconds(20);

	private volatile Process process;

	private final List<String> command;

	private final int port;

	private final Path directory;

	private final Thread shutdownHook;

	private RedisServerProcess(Process process, List<String> command, int port, Path directory) {
		this.process = process;
		this.command = command;
		this.port = port;
		this.directory = directory;
		this.shutdownHook = new Thread(this::stop, "redis-server-shutdown");
		Runtime.getRuntime().addShutdownHook(this.shutdownHook);
	}

	/**
	 * Starts a server and waits until it answers PING.
	 * @param executable the {@code redis-server} binary
	 * @param pinning where to run it
	 * @return the running server
	 */
	static RedisServerProcess start(String executable, CpuPinning pinning) {
		int port = RunBenchmarks.freePort();
		Path directory;
		try {
			directory = Files.createTempDirectory("ratelimit-benchmarks-redis");
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not start " + executable, ex);
		}
		List<String> command = pinning.redis(command(executable, port, directory));
		RedisServerProcess server = new RedisServerProcess(launch(command, directory), command, port, directory);
		try {
			server.awaitPong();
		}
		catch (RuntimeException ex) {
			server.close();
			throw ex;
		}
		return server;
	}

	private static Process launch(List<String> command, Path directory) {
		try {
			return new ProcessBuilder(command).redirectErrorStream(true)
				.redirectOutput(ProcessBuilder.Redirect.appendTo(directory.resolve("redis.log").toFile()))
				.start();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not start " + command, ex);
		}
	}

	static List<String> command(String executable, int port, Path directory) {
		return new ArrayList<>(List.of(executable, "--port", Integer.toString(port), "--bind", RunBenchmarks.HOST,
				"--save", "", "--appendonly", "no", "--daemonize", "no", "--dir", directory.toString()));
	}

	@Override
	public String host() {
		return RunBenchmarks.HOST;
	}

	@Override
	public int port() {
		return this.port;
	}

	@Override
	public void close() {
		stop();
		try {
			Runtime.getRuntime().removeShutdownHook(this.shutdownHook);
		}
		catch (IllegalStateException ex) {
			// the JVM is already exiting, and the hook is stopping the server
		}
	}

	@Override
	public void outage(Duration down) {
		stopProcess();
		try {
			Thread.sleep(down.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		this.process = launch(this.command, this.directory);
		awaitPong();
	}

	private void stop() {
		stopProcess();
		File[] files = this.directory.toFile().listFiles();
		if (files != null) {
			for (File file : files) {
				file.delete();
			}
		}
		this.directory.toFile().delete();
	}

	private void stopProcess() {
		this.process.destroy();
		try {
			if (!this.process.waitFor(10, TimeUnit.SECONDS)) {
				this.process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
			}
		}
		catch (InterruptedException ex) {
			this.process.destroyForcibly();
			Thread.currentThread().interrupt();
		}
	}

	private void awaitPong() {
		long deadline = System.nanoTime() + STARTUP.toNanos();
		while (System.nanoTime() - deadline < 0) {
			if (!this.process.isAlive()) {
				throw new IllegalStateException("redis-server exited with " + this.process.exitValue() + ": "
						+ log());
			}
			if (pong()) {
				return;
			}
			try {
				Thread.sleep(50);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted waiting for redis-server", ex);
			}
		}
		throw new IllegalStateException("redis-server did not answer PING on port " + this.port + " within "
				+ STARTUP.toSeconds() + " s: " + log());
	}

	private boolean pong() {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(RunBenchmarks.HOST, this.port), 200);
			socket.setSoTimeout(1000);
			OutputStream out = socket.getOutputStream();
			out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
			out.flush();
			InputStream in = socket.getInputStream();
			byte[] reply = new byte[7];
			int read = in.readNBytes(reply, 0, reply.length);
			return new String(reply, 0, read, StandardCharsets.US_ASCII).startsWith("+PONG");
		}
		catch (IOException ex) {
			return false;
		}
	}

	private String log() {
		try {
			return Files.readString(this.directory.resolve("redis.log"));
		}
		catch (IOException ex) {
			return "(no log)";
		}
	}

}
