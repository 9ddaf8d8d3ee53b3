package io.github.ratelimit.benchmarks;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the smoke test runs in place of {@code wrk}, so that {@code ./mvnw verify} needs only a JDK: takes wrk's
 * options ({@code -t<threads> -c<connections> -d<seconds>s --latency <url>}), keeps {@code connections} requests in
 * flight over keep-alive connections for that long, and prints the lines of wrk's output that {@link WrkRun} reads. Its
 * numbers are no measurement; the gateway cell's are wrk's.
 */
public final class WrkStandIn {

	private WrkStandIn() {
	}

	/**
	 * Runs the load and prints the summary.
	 * @param args wrk's options and the URL
	 * @throws Exception when the load cannot run
	 */
	public static void main(String[] args) throws Exception {
		int connections = 1;
		int seconds = 1;
		String url = args[args.length - 1];
		for (String arg : args) {
			if (arg.startsWith("-c")) {
				connections = Integer.parseInt(arg.substring(2));
			}
			else if (arg.startsWith("-d")) {
				seconds = Integer.parseInt(arg.substring(2, arg.length() - 1));
			}
		}
		HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
		HttpRequest request = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).build();
		AtomicLong non2xx = new AtomicLong();
		List<Long> latencies = Collections.synchronizedList(new ArrayList<>());
		long start = System.nanoTime();
		long end = start + Duration.ofSeconds(seconds).toNanos();
		List<Thread> threads = new ArrayList<>();
		for (int connection = 0; connection < connections; connection++) {
			Thread thread = new Thread(() -> {
				while (System.nanoTime() - end < 0) {
					long sent = System.nanoTime();
					try {
						int status = client.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
						if (status < 200 || status >= 400) {
							non2xx.incrementAndGet();
						}
					}
					catch (Exception ex) {
						return;
					}
					latencies.add(System.nanoTime() - sent);
				}
			});
			thread.start();
			threads.add(thread);
		}
		for (Thread thread : threads) {
			thread.join();
		}
		double elapsed = (System.nanoTime() - start) / 1e9;
		List<Long> sorted = new ArrayList<>(latencies);
		Collections.sort(sorted);
		System.out.println("  Latency Distribution");
		System.out.println(String.format(Locale.ROOT, "     50%%  %.2fms", percentile(sorted, 0.50)));
		System.out.println(String.format(Locale.ROOT, "     99%%  %.2fms", percentile(sorted, 0.99)));
		System.out.println(String.format(Locale.ROOT, "  %d requests in %.2fs, 0B read", sorted.size(), elapsed));
		if (non2xx.get() > 0) {
			System.out.println("  Non-2xx or 3xx responses: " + non2xx.get());
		}
		System.out.println(String.format(Locale.ROOT, "Requests/sec: %.2f", sorted.size() / elapsed));
	}

	private static double percentile(List<Long> sorted, double share) {
		return sorted.isEmpty() ? 0 : sorted.get((int) Math.min(sorted.size() - 1, share * sorted.size())) / 1e6;
	}

}
