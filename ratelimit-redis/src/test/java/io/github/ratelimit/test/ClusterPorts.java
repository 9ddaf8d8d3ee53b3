package io.github.ratelimit.test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Ports for Redis Cluster nodes: a node also listens on its cluster bus port, {@value #BUS_PORT_OFFSET} above its
 * own, so its port must be at most {@value #HIGHEST} and both ports must be free.
 * <p>
 * An OS-assigned free port ({@link TestRedis#freePort()}) comes from the ephemeral range (32768-60999 on Linux,
 * 49152-65535 on macOS and Windows), which reaches above 55535. Node ports are picked instead at random from
 * 12000-21999, so their bus ports are 22000-31999: both below every ephemeral range, so neither can be handed to an
 * outgoing connection between the check and the start of the node, and no node port is another node's bus port. A
 * port is picked once per JVM.
 */
public final class ClusterPorts {

	/** How far above a node's port its cluster bus listens. */
	public static final int BUS_PORT_OFFSET = 10000;

	/** The highest port a cluster node can listen on: its bus port must be a valid port too. */
	public static final int HIGHEST = 65535 - BUS_PORT_OFFSET;

	static final int LOWEST = 12000;

	static final int HIGHEST_PICKED = LOWEST + BUS_PORT_OFFSET - 1;

	private static final int ATTEMPTS = 1000;

	private static final Set<Integer> picked = ConcurrentHashMap.newKeySet();

	private ClusterPorts() {
	}

	/**
	 * A port for a cluster node that is free now, as is its bus port, and that this JVM has not picked before.
	 * @return the port, at most {@value #HIGHEST}
	 */
	public static int freePort() {
		for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
			int port = ThreadLocalRandom.current().nextInt(LOWEST, HIGHEST_PICKED + 1);
			if (!picked.contains(port) && free(port) && free(busPort(port)) && picked.add(port)) {
				return port;
			}
		}
		throw new IllegalStateException("No free cluster node port (with its bus port) between " + LOWEST + " and "
				+ HIGHEST_PICKED + " after " + ATTEMPTS + " attempts");
	}

	/**
	 * The cluster bus port of a node.
	 * @param port the node's port
	 * @return its bus port
	 */
	public static int busPort(int port) {
		return port + BUS_PORT_OFFSET;
	}

	/**
	 * Whether a local port can be bound on the loopback address now, as a Redis node bound to it would.
	 * @param port the port
	 * @return whether it is free
	 */
	static boolean free(int port) {
		try (ServerSocket socket = new ServerSocket()) {
			socket.setReuseAddress(false);
			socket.bind(new InetSocketAddress("127.0.0.1", port));
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

}
