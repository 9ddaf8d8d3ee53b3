package io.github.ratelimit.test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The ports tests start servers on: below the system's ephemeral range (which it hands to servers binding port 0 and
 * to outgoing connections, another build's among them), never handed out twice, and free when handed out.
 */
class TestPortsTests {

	@Test
	void portsComeFromBelowTheEphemeralRangeAndAreNeverHandedOutTwice() throws Exception {
		String range = Files.readAllLines(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).get(0).trim();
		int ephemeralStart = Integer.parseInt(range.split("\\s+")[0]);
		Set<Integer> ports = new HashSet<>();
		for (int i = 0; i < 200; i++) {
			int port = TestRedis.freePort();
			assertThat(port).isBetween(10000, ephemeralStart - 1);
			assertThat(TestRedis.listening(port)).isFalse();
			assertThat(ports.add(port)).as("port %d handed out twice", port).isTrue();
		}
	}

}
