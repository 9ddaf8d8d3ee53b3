package io.github.ratelimit.benchmarks;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import com.sun.net.httpserver.HttpServer;

/**
 * The gateway cell's upstream: the JDK's HTTP server in the benchmark JVM (so on the client CPU), answering every
 * request with 200 and two bytes, keep-alive, no Nagle delay. As little work as an upstream can do, so that the
 * gateway's routes differ only by their limiter.
 */
final class Upstream implements AutoCloseable {

	private static final byte[] BODY = "ok".getBytes(StandardCharsets.US_ASCII);

	private final HttpServer server;

	private final ExecutorService threads;

	private Upstream(HttpServer server, ExecutorService threads) {
		this.server = server;
		this.threads = threads;
	}

	/**
	 * Starts the upstream on a free port of 127.0.0.1.
	 * @return the running upstream
	 */
	static Upstream start() {
		// read once when the JDK's server is first used: without it, each response waits for the client's delayed ACK
		System.setProperty("sun.net.httpserver.nodelay", "true");
		try {
			HttpServer server = HttpServer.create(new InetSocketAddress(RunBenchmarks.HOST, 0), 1024);
			ExecutorService threads = Executors.newFixedThreadPool(4);
			server.setExecutor(threads);
			server.createContext("/", (exchange) -> {
				exchange.getResponseHeaders().set("Content-Type", "text/plain");
				exchange.sendResponseHeaders(200, BODY.length);
				try (OutputStream body = exchange.getResponseBody()) {
					body.write(BODY);
				}
			});
			server.start();
			return new Upstream(server, threads);
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not start the upstream", ex);
		}
	}

	String uri() {
		return "http://" + RunBenchmarks.HOST + ":" + this.server.getAddress().getPort();
	}

	@Override
	public void close() {
		this.server.stop(0);
		this.threads.shutdownNow();
	}

}
