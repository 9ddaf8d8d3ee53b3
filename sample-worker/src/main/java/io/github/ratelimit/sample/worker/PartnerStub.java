package io.github.ratelimit.sample.worker;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/**
 * A stand-in for the partner API, on the JDK's own HTTP server: answers every request but {@code /stats} with 200
 * {@code ok} and counts them per second of its clock. {@code GET /stats} lists the counts as plain text, one line a
 * second that had calls: {@code <epoch second> <calls>}. Run from the sample's jar with
 * {@code java -jar sample-worker.jar --stub --port=9090}, it also prints each second's count.
 */
public final class PartnerStub implements AutoCloseable {

	private final HttpServer server;

	private final ExecutorService executor = Executors.newFixedThreadPool(4);

	private final Map<Long, AtomicLong> callsPerSecond = new ConcurrentSkipListMap<>();

	private PartnerStub(HttpServer server) {
		this.server = server;
		server.setExecutor(this.executor);
		server.createContext("/", this::call);
		server.createContext("/stats", this::stats);
		server.start();
	}

	/**
	 * Starts a stub on a port of this machine.
	 * @param port the port, or 0 for any free one
	 * @return the running stub
	 * @throws IOException if it cannot listen there
	 */
	public static PartnerStub start(int port) throws IOException {
		return new PartnerStub(HttpServer.create(new InetSocketAddress("127.0.0.1", port), 100));
	}

	/**
	 * Runs the stub until the JVM is stopped, printing the calls of each second once it is over.
	 * @param args {@code --port=<port>} (9090 by default); others are ignored
	 * @throws Exception if it cannot listen on the port
	 */
	public static void main(String[] args) throws Exception {
		int port = 9090;
		for (String arg : args) {
			if (arg.startsWith("--port=")) {
				port = Integer.parseInt(arg.substring("--port=".length()));
			}
		}
		PartnerStub stub = start(port);
		Runtime.getRuntime().addShutdownHook(new Thread(stub::close, "partner-stub-shutdown"));
		System.out.println("Partner API stub listening on http://127.0.0.1:" + port + "/ (calls per second: /stats)");
		long second = Instant.now().getEpochSecond();
		while (true) {
			// a quarter of a second after each second's end, so that a call under way then is counted
			Thread.sleep(Math.max(0, (second + 1) * 1000 + 250 - System.currentTimeMillis()));
			long calls = stub.calls(second);
			if (calls > 0) {
				LocalTime time = LocalTime.ofInstant(Instant.ofEpochSecond(second), ZoneId.systemDefault());
				System.out.println(time.truncatedTo(ChronoUnit.SECONDS) + " " + calls + ((calls == 1) ? " call" : " calls"));
			}
			second++;
		}
	}

	/**
	 * The port the stub listens on.
	 * @return the port
	 */
	public int port() {
		return this.server.getAddress().getPort();
	}

	/**
	 * The calls received in one second of the stub's clock.
	 * @param epochSecond the second, in seconds since the epoch
	 * @return the calls
	 */
	public long calls(long epochSecond) {
		AtomicLong calls = this.callsPerSecond.get(epochSecond);
		return (calls != null) ? calls.get() : 0;
	}

	/**
	 * The calls received since the stub started.
	 * @return the calls
	 */
	public long total() {
		return this.callsPerSecond.values().stream().mapToLong(AtomicLong::get).sum();
	}

	@Override
	public void close() {
		this.server.stop(0);
		this.executor.shutdownNow();
	}

	private void call(HttpExchange exchange) throws IOException {
		long second = Instant.now().getEpochSecond();
		this.callsPerSecond.computeIfAbsent(second, (s) -> new AtomicLong()).incrementAndGet();
		respond(exchange, "ok");
	}

	private void stats(HttpExchange exchange) throws IOException {
		StringBuilder text = new StringBuilder();
		this.callsPerSecond.forEach((second, calls) -> text.append(second).append(' ').append(calls.get()).append('\n'));
		respond(exchange, text.toString());
	}

	private static void respond(HttpExchange exchange, String body) throws IOException {
		byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
		exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
		exchange.sendResponseHeaders(200, bytes.length);
		try (OutputStream out = exchange.getResponseBody()) {
			out.write(bytes);
		}
	}

}
