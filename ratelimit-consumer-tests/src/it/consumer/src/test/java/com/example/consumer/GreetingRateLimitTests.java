package com.example.consumer;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import redis.embedded.RedisServer;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The application as a user runs it, on the Spring Boot line its POM chose, on a real Redis server ({@code REDIS_URL},
 * else an embedded one on a free port): two greetings within the hour are admitted and the third is refused with a
 * 429, every header and the problem body exact.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class GreetingRateLimitTests {

	private static final String POLICY = "\"greeting\";q=2;w=3600";

	private static RedisServer embedded;

	@LocalServerPort
	private int port;

	@Autowired
	private StringRedisTemplate redis;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) throws IOException {
		String given = System.getenv("REDIS_URL");
		String url = (given != null && !given.isBlank()) ? given : startEmbedded();
		registry.add("spring.data.redis.url", () -> url);
	}

	@AfterAll
	static void stopRedis() throws IOException {
		if (embedded != null) {
			embedded.stop();
		}
	}

	@Test
	void runsOnTheSpringBootLineOfItsPom() {
		assertThat(SpringBootVersion.getVersion()).isEqualTo(System.getProperty("expected.spring-boot.version"));
	}

	@Test
	void thirdGreetingWithinTheHourIsRefused() throws Exception {
		this.redis.delete(this.redis.keys("ratelimit:greeting:*"));
		long start = System.nanoTime();
		HttpResponse<String> first = greet();
		HttpResponse<String> second = greet();
		HttpResponse<String> refused = greet();
		// Redis decided the three between these two moments: a wait it gives is at most this much shorter than the
		// policy's 2/1h makes it (one permit back every 1800 s, full again 3600 s after the first greeting)
		long elapsed = (System.nanoTime() - start) / 1_000_000_000L;

		assertThat(first.statusCode()).isEqualTo(200);
		assertThat(first.body()).isEqualTo("Hello");
		assertThat(first.headers().map()).containsEntry("RateLimit-Policy", List.of(POLICY))
			.containsEntry("RateLimit", List.of("\"greeting\";r=1;t=1800"))
			.containsEntry("X-RateLimit-Limit", List.of("2"))
			.containsEntry("X-RateLimit-Remaining", List.of("1"))
			.containsEntry("X-RateLimit-Reset", List.of("1800"));

		assertThat(second.statusCode()).isEqualTo(200);
		assertThat(second.headers().firstValue("RateLimit-Policy")).hasValue(POLICY);
		assertThat(second.headers().firstValue("X-RateLimit-Remaining")).hasValue("0");
		assertWait(second, "RateLimit", "\"greeting\";r=0;t=", 1800, elapsed);
		assertWait(second, "X-RateLimit-Reset", "", 3600, elapsed);

		assertThat(refused.statusCode()).isEqualTo(429);
		assertThat(refused.headers().firstValue("Content-Type")).hasValue("application/problem+json");
		assertThat(refused.headers().firstValue("RateLimit-Policy")).hasValue(POLICY);
		assertThat(refused.headers().firstValue("X-RateLimit-Limit")).hasValue("2");
		assertThat(refused.headers().firstValue("X-RateLimit-Remaining")).hasValue("0");
		long retryAfter = assertWait(refused, "Retry-After", "", 1800, elapsed);
		assertWait(refused, "RateLimit", "\"greeting\";r=0;t=", retryAfter, 0);
		assertWait(refused, "X-RateLimit-Reset", "", 3600, elapsed);
		assertThat(JsonMapper.builder().build().readValue(refused.body(), Map.class)).isEqualTo(Map.of(
				"type", "https://iana.org/assignments/http-problem-types#quota-exceeded",
				"title", "Too Many Requests",
				"status", 429,
				"detail", "Rate limit policy 'greeting' (2/1h) exceeded; retry in " + retryAfter + " s.",
				"instance", "/greeting",
				"policy", "greeting",
				"violated-policies", List.of("greeting")));

		// one client of a token bucket: one key in Redis
		assertThat(this.redis.keys("ratelimit:greeting:*")).hasSize(1);
	}

	/**
	 * Asserts that a header is the prefix and then a number of seconds from the nominal wait down to that less the
	 * whole seconds elapsed, and gives that number.
	 */
	private static long assertWait(HttpResponse<String> response, String header, String prefix, long nominal,
			long elapsed) {
		assertThat(response.headers().allValues(header)).as(header).singleElement().asString().startsWith(prefix);
		long seconds = Long.parseLong(response.headers().firstValue(header).orElseThrow().substring(prefix.length()));
		assertThat(seconds).as(header).isBetween(nominal - elapsed, nominal);
		return seconds;
	}

	private HttpResponse<String> greet() throws Exception {
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + "/greeting")).build();
		return HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
	}

	private static String startEmbedded() throws IOException {
		int port = freePort();
		embedded = RedisServer.newRedisServer().port(port).bind("127.0.0.1").setting("save \"\"").build();
		embedded.start();
		return "redis://127.0.0.1:" + port;
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

}
