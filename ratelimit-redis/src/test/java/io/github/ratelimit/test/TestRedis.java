package io.github.ratelimit.test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.time.Duration;

import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.utility.DockerImageName;
import redis.embedded.RedisServer;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The real Redis server every Redis test of every module talks to, started once per test JVM: {@code REDIS_URL} when
 * set; else a Testcontainers {@code redis:7} when a Docker engine answers; else an embedded Redis server process on a
 * free port. Whatever it started is stopped when the JVM exits.
 */
public final class TestRedis {

	/**
	 * The decision timeout of limiters in tests that are not about timeouts: long enough that a loaded build machine
	 * never turns a slow answer into a failure.
	 */
	public static final Duration TIMEOUT = Duration.ofSeconds(10);

	private static volatile TestRedis instance;

	private final String source;

	private final String host;

	private final int port;

	private final AutoCloseable server;

	private TestRedis(String source, String host, int port, AutoCloseable server) {
		this.source = source;
		this.host = host;
		this.port = port;
		this.server = server;
	}

	/**
	 * The shared server, started on first use.
	 * @return the server
	 */
	public static TestRedis get() {
		TestRedis redis = instance;
		if (redis == null) {
			synchronized (TestRedis.class) {
				redis = instance;
				if (redis == null) {
					redis = start();
					Runtime.getRuntime().addShutdownHook(new Thread(redis::close, "test-redis-shutdown"));
					instance = redis;
				}
			}
		}
		return redis;
	}

	/**
	 * Where the server came from: {@code REDIS_URL}, {@code testcontainers} or {@code embedded}.
	 * @return the source
	 */
	public String source() {
		return this.source;
	}

	public String host() {
		return this.host;
	}

	public int port() {
		return this.port;
	}

	/**
	 * The server as a {@code redis://} URL.
	 * @return the URL
	 */
	public String url() {
		return "redis://" + this.host + ":" + this.port;
	}

	/**
	 * A new, started connection factory of its own, as one application instance would have. The caller destroys it.
	 * @return the connection factory
	 */
	public LettuceConnectionFactory newConnectionFactory() {
		return connectionFactory(this.host, this.port);
	}

	private static LettuceConnectionFactory connectionFactory(String host, int port) {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(host, port));
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	private void close() {
		try {
			this.server.close();
		}
		catch (Exception ex) {
			// the JVM is exiting; nothing more can be done
		}
	}

	private static TestRedis start() {
		String url = System.getenv("REDIS_URL");
		if (url != null && !url.isBlank()) {
			URI uri = URI.create(url);
			return new TestRedis("REDIS_URL", uri.getHost(), (uri.getPort() > 0) ? uri.getPort() : 6379, () -> {
			});
		}
		if (dockerAvailable()) {
			GenericContainer<?> container = new GenericContainer<>(DockerImageName.parse("redis:7"))
				.withExposedPorts(6379);
			container.start();
			return new TestRedis("testcontainers", container.getHost(), container.getMappedPort(6379),
					container::stop);
		}
		EmbeddedRedis embedded = EmbeddedRedis.start(freePort());
		return new TestRedis("embedded", "127.0.0.1", embedded.port(), embedded::stop);
	}

	private static boolean dockerAvailable() {
		try {
			return DockerClientFactory.instance().isDockerAvailable();
		}
		catch (Throwable ex) {
			return false;
		}
	}

	/**
	 * A TCP port nothing listens on now, for a server the test starts: one the system does not hand out to others
	 * meanwhile, and no other test JVM on this machine is given while this one runs ({@link TestPorts}).
	 * @return the port
	 */
	public static int freePort() {
		return TestPorts.reserve();
	}

	/**
	 * Whether something accepts connections on a local port.
	 * @param port the port
	 * @return whether it is listening
	 */
	public static boolean listening(int port) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress("127.0.0.1", port), (int) Duration.ofMillis(200).toMillis());
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

	/**
	 * An embedded Redis server process: no persistence, bound to loopback. Tests that make Redis fail stop and
	 * restart one of their own on the same port.
	 */
	public static final class EmbeddedRedis {

		private final int port;

		private RedisServer server;

		private EmbeddedRedis(int port) {
			this.port = port;
		}

		/**
		 * Starts a server on a port.
		 * @param port the port
		 * @return the running server
		 */
		public static EmbeddedRedis start(int port) {
			EmbeddedRedis redis = new EmbeddedRedis(port);
			redis.restart();
			return redis;
		}

		public int port() {
			return this.port;
		}

		/**
		 * A new, started connection factory of its own on this server. The caller destroys it.
		 * @return the connection factory
		 */
		public LettuceConnectionFactory newConnectionFactory() {
			return connectionFactory("127.0.0.1", this.port);
		}

		/**
		 * Starts the server again on the same port, empty.
		 */
		public synchronized void restart() {
			try {
				this.server = RedisServer.newRedisServer()
					.port(this.port)
					.bind("127.0.0.1")
					.setting("save \"\"")
					.setting("appendonly no")
					.onShutdownForceStop(true)
					.build();
				this.server.start();
			}
			catch (IOException ex) {
				throw new IllegalStateException("Could not start an embedded Redis server on port " + this.port, ex);
			}
		}

		/**
		 * Starts the server again if it was stopped.
		 */
		public synchronized void restartIfStopped() {
			if (this.server == null || !this.server.isActive()) {
				restart();
			}
		}

		/**
		 * Stops the server process.
		 */
		public synchronized void stop() {
			try {
				if (this.server != null && this.server.isActive()) {
					this.server.stop();
				}
			}
			catch (IOException ex) {
				throw new IllegalStateException("Could not stop the embedded Redis server on port " + this.port, ex);
			}
		}

	}

}
