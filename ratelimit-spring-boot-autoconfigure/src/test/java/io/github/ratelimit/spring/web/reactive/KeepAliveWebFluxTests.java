package io.github.ratelimit.spring.web.reactive;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.ratelimit.spring.annotation.RateLimited;
import io.github.ratelimit.test.OwnReactorResources;
import io.github.ratelimit.test.RunningServer;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Keep-alive clients of a WebFlux server on Redis get every answer, from the filter and from a {@code @RateLimited}
 * controller method returning a {@code Mono}. Decisions that Redis answers continue on the
 * connection's own event loop, so each exchange ends there before the connection reads its next request, whether the
 * next is decided by Redis (on Lettuce's thread) or at once (by the deny cache). Reactor Netty 1.3.6 stops reading a
 * keep-alive connection whose next request arrived before the previous exchange ended and is then answered at once
 * (reactor/reactor-netty#4361): this test stalls, and fails on the client's timeout, when decisions continue on
 * Lettuce's thread (checked: it failed twice in two runs before they were moved).
 */
class KeepAliveWebFluxTests {

	private static final int THREADS = 8;

	private static final int REQUESTS_PER_THREAD = 150;

	private static final List<String> PATHS = List.of("/admitting", "/refusing", "/annotated");

	@Test
	void keepAliveClientsShouldGetEveryAnswer() throws Exception {
		try (RunningServer server = RunningServer.start(WebApplicationType.REACTIVE,
				new Class<?>[] { App.class, AnnotatedController.class, OwnReactorResources.class },
				"ratelimit.key-prefix=keep-alive-" + UUID.randomUUID(), "ratelimit.policies.refusing.paths=/refusing",
				"ratelimit.policies.refusing.limits=20/1d", "ratelimit.policies.admitting.paths=/admitting",
				"ratelimit.policies.admitting.limits=1000000/1d")) {
			HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
			ExecutorService threads = Executors.newFixedThreadPool(THREADS);
			try {
				List<Future<int[]>> counts = new ArrayList<>();
				for (int t = 0; t < THREADS; t++) {
					counts.add(threads.submit(() -> send(client, server.port())));
				}
				int admitted = 0;
				int refused = 0;
				for (Future<int[]> count : counts) {
					int[] statuses = count.get(5, TimeUnit.MINUTES);
					admitted += statuses[0];
					refused += statuses[1];
				}
				assertThat(admitted + refused).isEqualTo(THREADS * REQUESTS_PER_THREAD);
				assertThat(admitted).as("all of /admitting, 20 of /refusing, 20 of /annotated")
					.isEqualTo(THREADS * REQUESTS_PER_THREAD / 3 + 40);
			}
			finally {
				threads.shutdownNow();
			}
		}
	}

	/**
	 * Sends, in turn, requests that Redis admits and requests refused (by the filter and by {@code @RateLimited}),
	 * mostly by the deny cache, on kept-alive connections.
	 */
	private static int[] send(HttpClient client, int port) throws Exception {
		int[] statuses = new int[2];
		for (int i = 0; i < REQUESTS_PER_THREAD; i++) {
			String path = PATHS.get(i % PATHS.size());
			HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
				.timeout(Duration.ofSeconds(20))
				.build();
			int status = client.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
			assertThat(status).isIn(200, 429);
			statuses[(status == 200) ? 0 : 1]++;
		}
		return statuses;
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@RestController
	static class App {

		@RequestMapping("/**")
		Mono<String> ok() {
			return Mono.just("ok");
		}

	}

	@RestController
	static class AnnotatedController {

		@RateLimited(name = "annotated", limits = "20/1d")
		@RequestMapping("/annotated")
		public Mono<String> annotated() {
			return Mono.just("annotated");
		}

	}

}
