package io.github.ratelimit.sample.webflux;

import java.util.List;
import java.util.UUID;

import io.github.ratelimit.test.TestRedis;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.reactive.server.WebTestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The WebFlux sample over HTTP on a real Netty server and a real Redis, with BlockHound installed. The shipped
 * capacities are kept; the periods are made long enough that no permit is refilled while a test runs, so counts are
 * exact however slow the machine.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = { "sample.embedded-redis=never",
		"ratelimit.policies.hello.limits=5/1h", "ratelimit.policies.orders.plans.free.limits=10/1h",
		"ratelimit.policies.orders-ip.limits=30/1h" })
class SampleWebFluxApplicationTests {

	private static final String KEY_PREFIX = "sample-webflux-application-tests-" + UUID.randomUUID();

	private static final String QUOTA_EXCEEDED = "https://iana.org/assignments/http-problem-types#quota-exceeded";

	@LocalServerPort
	private int port;

	private WebTestClient client;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		TestRedis redis = TestRedis.get();
		registry.add("spring.data.redis.host", redis::host);
		registry.add("spring.data.redis.port", redis::port);
		registry.add("ratelimit.key-prefix", () -> KEY_PREFIX);
	}

	@BeforeEach
	void connect() {
		this.client = RunningSample.client(this.port);
	}

	@Test
	void helloAdmitsFiveRequestsThenRefusesWithRetryAfterAndProblemDetail() {
		for (int remaining = 4; remaining >= 0; remaining--) {
			this.client.get().uri("/api/hello").exchange()
				.expectStatus().isOk()
				.expectHeader().valueEquals("RateLimit-Policy", "\"hello\";q=5;w=3600")
				.expectHeader().valueEquals("X-RateLimit-Remaining", Integer.toString(remaining))
				.expectBody().json("{\"message\":\"hello\"}");
		}
		this.client.get().uri("/api/hello").exchange()
			.expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
			// a token bucket of 5/1h gains a permit every 720 s, counted from the first request (on a slow machine,
			// seconds before this one)
			.expectHeader()
			.value("Retry-After", (seconds) -> assertThat(Long.parseLong(seconds)).isBetween(600L, 720L))
			.expectHeader().valueMatches("RateLimit", "\"hello\";r=0;t=(6[0-9][0-9]|7[01][0-9]|720)")
			.expectHeader().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON)
			.expectBody()
			.jsonPath("$.type").isEqualTo(QUOTA_EXCEEDED)
			.jsonPath("$.status").isEqualTo(429)
			.jsonPath("$.title").isEqualTo("Too Many Requests")
			.jsonPath("$.detail").value(String.class, (detail) -> assertThat(detail)
				.matches("Rate limit policy 'hello' \\(5/1h\\) exceeded; retry in (6[0-9][0-9]|7[01][0-9]|720) s\\."))
			.jsonPath("$.instance").isEqualTo("/api/hello")
			.jsonPath("$.policy").isEqualTo("hello")
			.jsonPath("$['violated-policies']").isEqualTo(List.of("hello"));
	}

	@Test
	void unlimitedIsNeverLimited() {
		for (int i = 0; i < 25; i++) {
			this.client.get().uri("/api/unlimited").exchange()
				.expectStatus().isOk()
				.expectHeader().doesNotExist("RateLimit-Policy")
				.expectHeader().doesNotExist("X-RateLimit-Limit")
				.expectBody().json("{\"message\":\"unlimited\"}");
		}
	}

	@Test
	void ordersAreLimitedPerApiKey() {
		String first = "key-" + UUID.randomUUID();
		String second = "key-" + UUID.randomUUID();
		admitTenOrdersThenRefuse(first);
		admitTenOrdersThenRefuse(second);
		this.client.get().uri("/api/orders").header("X-Api-Key", first).exchange()
			.expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
	}

	private void admitTenOrdersThenRefuse(String apiKey) {
		for (int remaining = 9; remaining >= 0; remaining--) {
			this.client.get().uri("/api/orders").header("X-Api-Key", apiKey).exchange()
				.expectStatus().isOk()
				.expectHeader().valueEquals("RateLimit-Policy", "\"orders-free\";q=10;w=3600")
				.expectHeader().valueEquals("X-RateLimit-Remaining", Integer.toString(remaining))
				.expectBody().jsonPath("$.orders").isArray();
		}
		this.client.get().uri("/api/orders").header("X-Api-Key", apiKey).exchange()
			.expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
			// a token bucket of 10/1h gains a permit every 360 s, counted from the first request
			.expectHeader()
			.value("Retry-After", (seconds) -> assertThat(Long.parseLong(seconds)).isBetween(240L, 360L))
			.expectHeader().valueMatches("RateLimit", "\"orders-free\";r=0;t=(2[4-9][0-9]|3[0-5][0-9]|360)")
			.expectHeader().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON)
			.expectBody()
			.jsonPath("$.type").isEqualTo(QUOTA_EXCEEDED)
			.jsonPath("$.instance").isEqualTo("/api/orders")
			.jsonPath("$.policy").isEqualTo("orders");
	}

	@Test
	void actuatorHealthIsUpAndExposedEndpointsAnswer() {
		this.client.get().uri("/actuator/health").exchange()
			.expectStatus().isOk()
			.expectBody()
			.jsonPath("$.status").isEqualTo("UP")
			.jsonPath("$.components.redis.status").isEqualTo("UP")
			.jsonPath("$.components.rateLimiter.status").isEqualTo("UP");
		this.client.get().uri("/actuator/info").exchange().expectStatus().isOk();
		this.client.get().uri("/actuator/metrics").exchange()
			.expectStatus().isOk()
			.expectBody().jsonPath("$.names").isArray();
		this.client.get().uri("/actuator/prometheus").exchange()
			.expectStatus().isOk()
			.expectHeader().contentTypeCompatibleWith(MediaType.TEXT_PLAIN);
		this.client.get().uri("/actuator/ratelimits").exchange()
			.expectStatus().isOk()
			.expectBody().jsonPath("$.policies.hello").exists();
	}

}
