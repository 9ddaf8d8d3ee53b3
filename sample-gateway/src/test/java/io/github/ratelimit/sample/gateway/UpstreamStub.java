package io.github.ratelimit.sample.gateway;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/**
 * Stands in for the sample app behind the gateway: an HTTP server on a free local port that answers every GET with
 * 200 and {@code {"path":"<the path>"}}, and counts the requests that reached it per path. A request header
 * {@code X-Upstream-<name>} comes back as response header {@code <name>}, as a service's own rate-limit headers would.
 */
final class UpstreamStub implements AutoCloseable {

	/** The prefix of a request header the stub answers with, without the prefix. */
	static final String ECHOED = "X-Upstream-";

	private final HttpServer server;

	private final ExecutorService executor = Executors.newFixedThreadPool(4);

	private final Map<String, AtomicInteger> received = new ConcurrentHashMap<>();

	private UpstreamStub() {
		try {
			this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		this.server.createContext("/", this::answer);
		this.server.setExecutor(this.executor);
		this.server.start();
	}

	static UpstreamStub start() {
		return new UpstreamStub();
	}

	/**
	 * The URI a route sends its requests to.
	 * @return {@code http://127.0.0.1:<port>}
	 */
	String uri() {
		return "http://127.0.0.1:" + this.server.getAddress().getPort();
	}

	/**
	 * How many requests for a path reached the stub.
	 * @param path the path
	 * @return the count
	 */
	int received(String path) {
		AtomicInteger count = this.received.get(path);
		return (count != null) ? count.get() : 0;
	}

	private void answer(HttpExchange exchange) throws IOException {
		String path = exchange.getRequestURI().getPath();
		this.received.computeIfAbsent(path, (key) -> new AtomicInteger()).incrementAndGet();
		byte[] body = ("{\"path\":\"" + path + "\"}").getBytes(StandardCharsets.UTF_8);
		exchange.getRequestHeaders().forEach((name, values) -> {
			if (name.regionMatches(true, 0, ECHOED, 0, ECHOED.length())) {
				exchange.getResponseHeaders().put(name.substring(ECHOED.length()), values);
			}
		});
		exchange.getResponseHeaders().add("Content-Type", "application/json");
		exchange.sendResponseHeaders(200, body.length);
		try (OutputStream out = exchange.getResponseBody()) {
			out.write(body);
		}
	}

	@Override
	public void close() {
		this.server.stop(0);
		this.executor.shutdownNow();
	}

}
