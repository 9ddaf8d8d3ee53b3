package io.github.ratelimit.sample;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.ratelimit.test.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs the packaged sample, AOT-processed by the build, with {@code -Dspring.aot.enabled=true}, as its own process on
 * free ports with its embedded Redis, and checks that it limits as the sample does without AOT. The decision timeout is
 * that of tests not about timeouts: the first decisions of a cold process on a loaded machine must not fail open.
 */
class AotProcessedSampleIT {

	private static final Duration START_UP = Duration.ofMinutes(3);

	private static final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(30)).build();

	private static Process sample;

	private static final List<ProcessHandle> children = new ArrayList<>();

	private static Path log;

	private static int port;

	private static int redisPort;

	@BeforeAll
	static void startPackagedSample() throws Exception {
		Path jar = Path.of(System.getProperty("sample.jar", "target/sample-app-0.1.0-SNAPSHOT.jar"));
		assertThat(jar).as("the packaged sample").exists();
		log = jar.resolveSibling("aot-processed-sample.log");
		port = TestRedis.freePort();
		redisPort = TestRedis.freePort();
		sample = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
				"-Dspring.aot.enabled=true", "-jar", jar.toString(), "--server.port=" + port,
				"--spring.data.redis.host=localhost", "--spring.data.redis.port=" + redisPort,
				"--sample.embedded-redis=auto", "--ratelimit.timeout=" + TestRedis.TIMEOUT.toMillis() + "ms",
				"--ratelimit.policies.hello.limits=5/1h",
				"--ratelimit.policies.orders.plans.free.limits=3/1h")
			.redirectErrorStream(true)
			.redirectOutput(log.toFile())
			.start();
		awaitStarted();
	}

	private static void awaitStarted() throws Exception {
		Instant deadline = Instant.now().plus(START_UP);
		while (!output().contains("Started SampleApplication")) {
			assertThat(sample.isAlive()).as("the sample is running; its output:%n%s", output()).isTrue();
			assertThat(Instant.now()).as("the sample started within %s; its output:%n%s", START_UP, output())
				.isBefore(deadline);
			Thread.sleep(200);
		}
		sample.descendants().forEach(children::add);
		// a loaded machine may start the process before its Redis connection: decisions before it fail open
		while (!get("/actuator/health/rateLimiter").body().contains("\"status\":\"UP\"")) {
			assertThat(Instant.now()).as("the rate limiter was UP within %s", START_UP).isBefore(deadline);
			Thread.sleep(200);
		}
	}

	@AfterAll
	static void stopSample() throws Exception {
		if (sample == null) {
			return;
		}
		sample.destroy();
		if (!sample.waitFor(2, TimeUnit.MINUTES)) {
			sample.destroyForcibly().waitFor(1, TimeUnit.MINUTES);
		}
		boolean childrenLeft = children.stream().anyMatch(ProcessHandle::isAlive);
		children.forEach(ProcessHandle::destroyForcibly);
		assertThat(childrenLeft).as("processes the sample started outlive it").isFalse();
		assertThat(output()).contains("Stopped the embedded Redis server on port " + redisPort);
		assertThat(TestRedis.listening(redisPort)).isFalse();
	}

	@Test
	void runsAotProcessed() throws IOException {
		assertThat(output()).contains("Starting AOT-processed SampleApplication")
			.contains("Started an embedded Redis server on 127.0.0.1:" + redisPort);
	}

	@Test
	void helloAdmitsFiveThenRefusesWithTheHeadersAndAProblem() throws Exception {
		for (int i = 0; i < 5; i++) {
			HttpResponse<String> admitted = get("/api/hello");
			assertThat(admitted.statusCode()).isEqualTo(200);
			assertThat(admitted.headers().firstValue("RateLimit-Policy")).hasValue("\"hello\";q=5;w=3600");
			assertThat(admitted.headers().firstValue("X-RateLimit-Remaining")).hasValue(Integer.toString(4 - i));
		}
		HttpResponse<String> refused = get("/api/hello");
		assertThat(refused.statusCode()).isEqualTo(429);
		assertThat(refused.headers().firstValue("Retry-After")).isPresent();
		assertThat(refused.headers().firstValue("RateLimit")).hasValueSatisfying(
				(value) -> assertThat(value).startsWith("\"hello\";r=0;t="));
		assertThat(refused.headers().firstValue("Content-Type"))
			.hasValueSatisfying((value) -> assertThat(value).startsWith("application/problem+json"));
		assertThat(refused.body()).contains("\"status\":429").contains("\"policy\":\"hello\"");
	}

	@Test
	void ordersAreLimitedPerApiKeyByTheirPlanThroughRateLimited() throws Exception {
		for (int i = 0; i < 3; i++) {
			assertThat(get("/api/orders", "X-Api-Key", "aot-free").statusCode()).isEqualTo(200);
		}
		HttpResponse<String> refused = get("/api/orders", "X-Api-Key", "aot-free");
		assertThat(refused.statusCode()).isEqualTo(429);
		assertThat(refused.headers().firstValue("RateLimit-Policy")).hasValue("\"orders-free\";q=3;w=3600");
		HttpResponse<String> pro = get("/api/orders", "X-Api-Key", "pro-aot");
		assertThat(pro.statusCode()).isEqualTo(200);
		assertThat(pro.headers().firstValue("RateLimit-Policy")).hasValue("\"orders-pro\";q=100;w=60");
	}

	@Test
	void actuatorReportsThePoliciesAndTheirHealth() throws Exception {
		HttpResponse<String> report = get("/actuator/ratelimits");
		assertThat(report.statusCode()).isEqualTo(200);
		assertThat(report.body()).contains("\"backend\":\"redis\"")
			.contains("\"hello\":{\"algorithm\":\"token-bucket\",\"limits\":[\"5/1h\"]");
		HttpResponse<String> health = get("/actuator/health/rateLimiter");
		assertThat(health.statusCode()).isEqualTo(200);
		assertThat(health.body()).contains("\"status\":\"UP\"");
	}

	private static HttpResponse<String> get(String path, String... headers) throws Exception {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
			.timeout(Duration.ofSeconds(30));
		for (int i = 0; i < headers.length; i += 2) {
			request.header(headers[i], headers[i + 1]);
		}
		return client.send(request.build(), BodyHandlers.ofString());
	}

	private static String output() throws IOException {
		return Files.readString(log, StandardCharsets.UTF_8);
	}

}
