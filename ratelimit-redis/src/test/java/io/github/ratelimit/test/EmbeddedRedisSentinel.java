package io.github.ratelimit.test;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import redis.embedded.RedisSentinel;
import redis.embedded.RedisServer;

import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A real Sentinel setup of embedded Redis processes on free local ports: a master, one replica of it, and three
 * sentinels monitoring {@value #MASTER} with a quorum of 2, {@code down-after-milliseconds 3000} (long enough that
 * a master slowed by a busy machine is not taken for down, which would fail over before a test kills it) and
 * {@code failover-timeout 3000}. Ready once the replica is in sync and every sentinel knows the replica and the
 * other two sentinels, so that a failover can be agreed on. {@link #close()} stops every process.
 */
public final class EmbeddedRedisSentinel extends RedisProcesses {

	/** The name the sentinels monitor the master under. */
	public static final String MASTER = "mymaster";

	private final Map<Integer, RedisServer> servers = new LinkedHashMap<>();

	private final List<Integer> sentinelPorts = new ArrayList<>();

	private EmbeddedRedisSentinel() {
		super("redis-sentinel");
	}

	/**
	 * Starts a master, a replica and three sentinels, and waits until a failover could happen.
	 * @return the running setup; close it to stop every process
	 */
	public static EmbeddedRedisSentinel start() {
		EmbeddedRedisSentinel setup = new EmbeddedRedisSentinel();
		try {
			setup.startProcesses();
			return setup;
		}
		catch (RuntimeException ex) {
			setup.close();
			throw ex;
		}
	}

	private void startProcesses() {
		int masterPort = TestRedis.freePort();
		int replicaPort = TestRedis.freePort();
		this.servers.put(masterPort, start(server(masterPort, null)));
		this.servers.put(replicaPort, start(server(replicaPort, masterPort)));
		await("the replica on " + replicaPort + " is in sync with the master on " + masterPort,
				() -> on(replicaPort, (redis) -> redis.info("replication")).contains("master_link_status:up"));
		for (int i = 0; i < 3; i++) {
			int port = TestRedis.freePort();
			start(RedisSentinel.newRedisSentinel()
				.bind("127.0.0.1")
				.port(port)
				.masterName(MASTER)
				.masterPort(masterPort)
				.quorumSize(2)
				.downAfterMilliseconds(3000)
				.failOverTimeout(3000)
				.parallelSyncs(1)
				.onShutdownForceStop(true)
				.build());
			this.sentinelPorts.add(port);
		}
		await("every sentinel knows the master, its replica and the other sentinels",
				() -> this.sentinelPorts.stream()
					.allMatch((port) -> sentinelSees(port, masterPort, "slaves=1,sentinels=3")));
	}

	private RedisServer server(int port, Integer masterPort) {
		try {
			var builder = RedisServer.newRedisServer()
				.port(port)
				.bind("127.0.0.1")
				.setting("dir " + directory())
				.setting("save \"\"")
				.setting("appendonly no")
				.onShutdownForceStop(true);
			if (masterPort != null) {
				builder.slaveOf("127.0.0.1", masterPort);
			}
			return builder.build();
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not configure a Redis server on port " + port, ex);
		}
	}

	private boolean sentinelSees(int sentinelPort, int masterPort, String detail) {
		String info = on(sentinelPort, (redis) -> redis.info("sentinel"));
		return info.contains("name=" + MASTER + ",status=ok,address=127.0.0.1:" + masterPort + ",")
				&& info.contains(detail);
	}

	/**
	 * The sentinels as {@code spring.data.redis.sentinel.nodes} takes them.
	 * @return {@code 127.0.0.1:<port>,...}
	 */
	public String sentinelNodes() {
		return this.sentinelPorts.stream().map((port) -> "127.0.0.1:" + port).collect(Collectors.joining(","));
	}

	/**
	 * The setup as Spring Data Redis configures it.
	 * @return the configuration: the master's name and the sentinels
	 */
	public RedisSentinelConfiguration configuration() {
		RedisSentinelConfiguration configuration = new RedisSentinelConfiguration();
		configuration.master(MASTER);
		for (int port : this.sentinelPorts) {
			configuration.sentinel("127.0.0.1", port);
		}
		return configuration;
	}

	/**
	 * A new, started connection factory that finds the master through the sentinels. The caller destroys it.
	 * @return the connection factory
	 */
	public LettuceConnectionFactory newConnectionFactory() {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(configuration());
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	/**
	 * The port of the master, as the first sentinel reports it.
	 * @return the master's port
	 */
	public int masterPort() {
		return on(this.sentinelPorts.get(0), (redis) -> {
			String info = redis.info("sentinel");
			String address = info.replaceAll("(?s).*name=" + MASTER + ",status=\\w+,address=127\\.0\\.0\\.1:(\\d+),.*",
					"$1");
			return Integer.parseInt(address);
		});
	}

	/**
	 * The port of the replica the setup started with.
	 * @return its port
	 */
	public int replicaPort() {
		return List.copyOf(this.servers.keySet()).get(1);
	}

	/**
	 * Kills the current master's process, as a crash would.
	 * @return the port it listened on
	 */
	public int killMaster() {
		int port = masterPort();
		disconnect(port);
		stop(this.servers.get(port));
		return port;
	}

	/**
	 * Waits until every sentinel has switched to a new master and that server says it is one.
	 * @param oldMasterPort the port of the master that failed
	 * @return the new master's port
	 */
	public int awaitFailover(int oldMasterPort) {
		int newMaster = this.servers.keySet().stream().filter((port) -> port != oldMasterPort).findFirst().orElseThrow();
		await("the sentinels promote the server on " + newMaster + " to master",
				() -> this.sentinelPorts.stream().allMatch((port) -> sentinelSees(port, newMaster, "sentinels=3"))
						&& on(newMaster, (redis) -> redis.info("replication")).contains("role:master"));
		return newMaster;
	}

}
