package io.github.ratelimit.gateway.webmvc;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import com.sun.net.httpserver.HttpServer;

/**
 * The service the gateway routes to: the JDK's HTTP server on a free loopback port, answering every request 200 with
 * the same short body, so that what the gateway adds is all that differs between routes.
 */
final class Upstream implements AutoCloseable {

	/** The body of every answer. */
	static final String BODY = "upstream";

	private final HttpServer server;

	private final ExecutorService executor;

	private Upstream(HttpServer server, ExecutorService executor) {
		this.server = server;
		this.executor = executor;
	}

	static Upstream start() {
		try {
			HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
			server.createContext("/", (exchange) -> {
				byte[] body = BODY.getBytes(StandardCharsets.UTF_8);
				exchange.getResponseHeaders().set("Content-Type", "text/plain");
				exchange.sendResponseHeaders(200, body.length);
				try (OutputStream out = exchange.getResponseBody()) {
					out.write(body);
				}
			});
			ExecutorService executor = Executors.newFixedThreadPool(4);
			server.setExecutor(executor);
			server.start();
			return new Upstream(server, executor);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	URI uri() {
		return URI.create("http://127.0.0.1:" + this.server.getAddress().getPort());
	}

	@Override
	public void close() {
		this.server.stop(0);
		this.executor.shutdownNow();
	}

}
