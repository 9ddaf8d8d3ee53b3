package io.github.ratelimit.test;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The ports of cluster nodes: each at most 55535, so that its bus port (10000 above) is a valid port, with both free
 * when picked, and never picked twice.
 */
class ClusterPortsTests {

	@Test
	void everyPickIsAtMost55535WithItsBusPortFreeAndNoPickRepeats() {
		List<Integer> picks = new ArrayList<>();
		for (int i = 0; i < 300; i++) {
			int port = ClusterPorts.freePort();
			assertThat(port).as("pick %d", i).isLessThanOrEqualTo(55535).isPositive();
			assertThat(ClusterPorts.busPort(port)).isEqualTo(port + 10000).isLessThanOrEqualTo(65535);
			assertThat(ClusterPorts.free(port)).as("port %d free when picked", port).isTrue();
			assertThat(ClusterPorts.free(ClusterPorts.busPort(port))).as("bus port of %d free when picked", port)
				.isTrue();
			picks.add(port);
		}
		assertThat(picks).doesNotHaveDuplicates();
		assertThat(picks).noneMatch((port) -> picks.contains(ClusterPorts.busPort(port)));
	}

	@Test
	void aPortInUseIsNotFree() throws Exception {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			assertThat(ClusterPorts.free(socket.getLocalPort())).isFalse();
		}
	}

}
