package io.github.ratelimit.test;

import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.test.web.servlet.request.RequestPostProcessor;

/**
 * Clients of MockMvc requests, each with an address of its own, so that tests sharing a context and a policy do not
 * share a client's state.
 */
public final class Clients {

	private static final AtomicInteger COUNT = new AtomicInteger();

	private Clients() {
	}

	/**
	 * A client address no other test of this JVM uses.
	 * @return an address in 10.0.0.0/8
	 */
	public static String newAddress() {
		int n = COUNT.incrementAndGet();
		return "10." + ((n >> 16) & 0xff) + "." + ((n >> 8) & 0xff) + "." + (n & 0xff);
	}

	/**
	 * Sends a request from an address.
	 * @param address the client's address
	 * @return the post-processor
	 */
	public static RequestPostProcessor from(String address) {
		return (request) -> {
			request.setRemoteAddr(address);
			return request;
		};
	}

}
