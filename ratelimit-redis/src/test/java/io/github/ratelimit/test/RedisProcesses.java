package io.github.ratelimit.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import redis.embedded.Redis;

/**
 * What the multi-process topologies ({@link EmbeddedRedisCluster}, {@link EmbeddedRedisSentinel}) share: a working
 * directory of their own, the processes they started, an admin client for talking to one node at a time, bounded
 * polling, and stopping it all.
 */
public abstract class RedisProcesses implements AutoCloseable {

	/** The longest any topology waits for its nodes to agree. */
	static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(60);

	private final Path directory;

	private final List<Redis> processes = new ArrayList<>();

	private final RedisClient admin = RedisClient.create();

	private final Map<Integer, StatefulRedisConnection<String, String>> connections = new ConcurrentHashMap<>();

	RedisProcesses(String name) {
		try {
			this.directory = Files.createTempDirectory(name);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** The directory for the nodes' files (cluster node tables, sentinel configurations). */
	Path directory() {
		return this.directory;
	}

	/** Starts a process and keeps it, so that {@link #close()} stops it. */
	<R extends Redis> R start(R process) {
		this.processes.add(process);
		try {
			process.start();
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not start Redis on " + process.ports(), ex);
		}
		return process;
	}

	/**
	 * Kills one process started here (SIGKILL, as a crash would) and waits until its port is closed; stopping a
	 * stopped one does nothing.
	 */
	static void stop(Redis process) {
		try {
			if (process.isActive()) {
				process.stop();
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		// the library's forced stop does not wait for the process to exit
		await("Redis on " + process.ports() + " has exited",
				() -> process.ports().stream().noneMatch(TestRedis::listening));
	}

	/**
	 * Runs commands on one node, over an admin connection to it alone (kept for the next call).
	 * @param port the node's port
	 * @param action the commands
	 * @param <T> the result type
	 * @return the result
	 */
	public <T> T on(int port, RedisAction<T> action) {
		StatefulRedisConnection<String, String> connection = this.connections.computeIfAbsent(port,
				(node) -> this.admin.connect(RedisURI.builder()
					.withHost("127.0.0.1")
					.withPort(node)
					.withTimeout(Duration.ofSeconds(10))
					.build()));
		try {
			return action.apply(connection.sync());
		}
		catch (RuntimeException ex) {
			// the node may be gone: the next call connects afresh
			this.connections.remove(port, connection);
			connection.closeAsync();
			throw ex;
		}
	}

	/** Closes the admin connection to a node, if there is one: for nodes about to be stopped. */
	void disconnect(int port) {
		StatefulRedisConnection<String, String> connection = this.connections.remove(port);
		if (connection != null) {
			connection.close();
		}
	}

	/** Polls a condition every 50 ms until it holds, or fails after {@link #STARTUP_TIMEOUT}. */
	static void await(String what, BooleanSupplier condition) {
		long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
		RuntimeException last = null;
		while (System.nanoTime() - deadline < 0) {
			try {
				if (condition.getAsBoolean()) {
					return;
				}
			}
			catch (RuntimeException ex) {
				last = ex;
			}
			try {
				Thread.sleep(50);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted waiting until " + what, ex);
			}
		}
		throw new IllegalStateException("Gave up after " + STARTUP_TIMEOUT.toSeconds() + " s waiting until " + what,
				last);
	}

	/** Stops every process started here, whatever state it is in, and deletes the working directory. */
	@Override
	public void close() {
		for (Redis process : this.processes) {
			try {
				stop(process);
			}
			catch (RuntimeException ex) {
				// keep stopping the others
			}
		}
		this.connections.values().forEach(StatefulRedisConnection::closeAsync);
		this.admin.shutdown(Duration.ZERO, Duration.ofSeconds(2));
		try (Stream<Path> files = Files.walk(this.directory)) {
			files.sorted(Comparator.reverseOrder()).forEach((file) -> file.toFile().delete());
		}
		catch (IOException ex) {
			// a temporary directory left behind is harmless
		}
	}

	/**
	 * Commands run on one node.
	 */
	@FunctionalInterface
	public interface RedisAction<T> {

		/**
		 * Runs the commands.
		 * @param redis the node's commands
		 * @return the result
		 */
		T apply(RedisCommands<String, String> redis);

	}

}
