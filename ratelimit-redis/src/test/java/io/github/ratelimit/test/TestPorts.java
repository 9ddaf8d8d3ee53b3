package io.github.ratelimit.test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Ports for servers a test starts later, often in another process (a Redis server, a whole application in a JVM of
 * its own, which binds its port tens of seconds after it was chosen). A port the system handed out for a moment
 * ({@code new ServerSocket(0)}) is one it hands out again: to another build's application binding port 0 while ours
 * starts, or to an outgoing connection; our server then cannot bind it, and worse, a test may talk to the stranger
 * listening there (a CI run beside another build once counted another application's admissions so). So a port comes
 * from below the system's ephemeral range ({@code /proc/sys/net/ipv4/ip_local_port_range}), which the system never
 * hands out, chosen at random, reserved for the life of this JVM by a lock on a file that every test JVM on the
 * machine takes before using a port, and free when chosen.
 */
final class TestPorts {

	/** The lowest port handed out: above the ports developers' own services usually take. */
	private static final int LOWEST = 10000;

	private static final Path RESERVATIONS = Path.of(System.getProperty("java.io.tmpdir"), "ratelimit-test-ports");

	private static final List<FileChannel> held = new CopyOnWriteArrayList<>();

	private TestPorts() {
	}

	/**
	 * A port nothing listens on now, reserved for this JVM.
	 * @return the port
	 */
	static int reserve() {
		int end = ephemeralRangeStart();
		if (end - LOWEST < 1000) {
			return systemPort();
		}
		for (int attempt = 0; attempt < 1000; attempt++) {
			int port = ThreadLocalRandom.current().nextInt(LOWEST, end);
			if (lock(port) && bindable(port)) {
				return port;
			}
		}
		throw new IllegalStateException("No free port between " + LOWEST + " and " + end + " after 1000 attempts");
	}

	/**
	 * Locks the port's reservation file for the life of this JVM.
	 * @return whether this JVM now holds it and no other test JVM does
	 */
	private static boolean lock(int port) {
		try {
			Files.createDirectories(RESERVATIONS);
			FileChannel channel = FileChannel.open(RESERVATIONS.resolve(port + ".lock"), StandardOpenOption.CREATE,
					StandardOpenOption.WRITE);
			FileLock lock;
			try {
				lock = channel.tryLock();
			}
			catch (OverlappingFileLockException ex) {
				lock = null;
			}
			if (lock == null) {
				channel.close();
				return false;
			}
			held.add(channel);
			return true;
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not reserve port " + port + " under " + RESERVATIONS, ex);
		}
	}

	private static boolean bindable(int port) {
		try (ServerSocket socket = new ServerSocket()) {
			socket.setReuseAddress(true);
			socket.bind(new InetSocketAddress(port));
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

	private static int ephemeralRangeStart() {
		try {
			// read by lines: Files.readString reads a /proc file short (it reports a size of 0)
			String range = Files.readAllLines(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).get(0).trim();
			return Integer.parseInt(range.split("\\s+")[0]);
		}
		catch (IOException | RuntimeException ex) {
			// not Linux: the range IANA suggests, which most other systems use
			return 49152;
		}
	}

	private static int systemPort() {
		try (ServerSocket socket = new ServerSocket(0)) {
			socket.setReuseAddress(true);
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new IllegalStateException("No free port", ex);
		}
	}

}
