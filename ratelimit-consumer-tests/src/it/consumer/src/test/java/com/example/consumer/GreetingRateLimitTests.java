package com.example.consumer;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import redis.embedded.RedisServer;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The application as a user runs it, on a real Redis server ({@code REDIS_URL}, else an embedded one on a free port):
 * the third greeting within the hour is refused with a 429.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class GreetingRateLimitTests {

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
	void thirdGreetingWithinTheHourIsRefused() throws Exception {
		this.redis.delete(this.redis.keys("ratelimit:greeting:*"));
		assertThat(greet().statusCode()).isEqualTo(200);
		assertThat(greet().statusCode()).isEqualTo(200);
		HttpResponse<String> refused = greet();
		assertThat(refused.statusCode()).isEqualTo(429);
		assertThat(refused.headers().firstValue("Retry-After")).isPresent();
		assertThat(refused.headers().firstValue("Content-Type")).hasValue("application/problem+json");
		assertThat(refused.body()).contains("\"policy\":\"greeting\"");
		assertThat(this.redis.keys("ratelimit:greeting:*")).isNotEmpty();
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
