package io.github.ratelimit.sample.gateway;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import io.github.ratelimit.test.TestRedis;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.AfterAll;
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
 * The sample gateway over HTTP on a real Netty server and a real Redis, with BlockHound installed, routing to a stub
 * that stands in for the sample app. The shipped capacities are kept; the periods are made long enough that no permit
 * is refilled while a test runs, so counts are exact however slow the machine.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = { "sample.embedded-redis=never",
		"ratelimit.policies.gateway-hello.limits=5/1h", "ratelimit.policies.gateway-orders.plans.free.limits=10/1h",
		"ratelimit.policies.gateway-orders.plans.pro.limits=100/1h" })
class SampleGatewayApplicationTests {

	private static final String KEY_PREFIX = "sample-gateway-tests-" + UUID.randomUUID();

	private static final String QUOTA_EXCEEDED = "https://iana.org/assignments/http-problem-types#quota-exceeded";

	/** Longer than any decision of a test may take on a busy machine (decisions wait up to 10 s for Redis). */
	private static final Duration RESPONSE_TIMEOUT = Duration.ofSeconds(60);

	private static final UpstreamStub upstream = UpstreamStub.start();

	@LocalServerPort
	private int port;

	private WebTestClient client;

	@DynamicPropertySource
	static void redisAndUpstream(DynamicPropertyRegistry registry) {
		TestRedis redis = TestRedis.get();
		registry.add("spring.data.redis.host", redis::host);
		registry.add("spring.data.redis.port", redis::port);
		registry.add("ratelimit.key-prefix", () -> KEY_PREFIX);
		registry.add("sample.upstream", upstream::uri);
	}

	@AfterAll
	static void stopUpstream() {
		upstream.close();
	}

	@BeforeEach
	void connect() {
		this.client = WebTestClient.bindToServer().baseUrl("http://localhost:" + this.port)
			.responseTimeout(RESPONSE_TIMEOUT).build();
	}

	@Test
	void helloRouteAdmitsFiveRequestsPerAddressThenRefusesWithRetryAfterAndProblemDetail() {
		for (int remaining = 4; remaining >= 0; remaining--) {
			this.client.get().uri("/api/hello").exchange()
				.expectStatus().isOk()
				.expectHeader().valueEquals("RateLimit-Policy", "\"gateway-hello\";q=5;w=3600")
				.expectHeader().valueMatches("RateLimit", "\"gateway-hello\";r=" + remaining + ";t=[0-9]+")
				.expectHeader().valueEquals("X-RateLimit-Limit", "5")
				.expectHeader().valueEquals("X-RateLimit-Remaining", Integer.toString(remaining))
				.expectBody().json("{\"path\":\"/api/hello\"}");
		}
		this.client.get().uri("/api/hello").exchange()
			.expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
			// a token bucket of 5/1h gains a permit every 720 s, counted from the first request (on a slow machine,
			// seconds before this one)
			.expectHeader()
			.value("Retry-After", (seconds) -> assertThat(Long.parseLong(seconds)).isBetween(600L, 720L))
			.expectHeader().valueEquals("RateLimit-Policy", "\"gateway-hello\";q=5;w=3600")
			.expectHeader().valueMatches("RateLimit", "\"gateway-hello\";r=0;t=(6[0-9][0-9]|7[01][0-9]|720)")
			.expectHeader().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON)
			.expectBody()
			.jsonPath("$.type").isEqualTo(QUOTA_EXCEEDED)
			.jsonPath("$.status").isEqualTo(429)
			.jsonPath("$.title").isEqualTo("Too Many Requests")
			.jsonPath("$.detail").value(String.class, (detail) -> assertThat(detail).matches(
					"Rate limit policy 'gateway-hello' \\(5/1h\\) exceeded; retry in (6[0-9][0-9]|7[01][0-9]|720) s\\."))
			.jsonPath("$.instance").isEqualTo("/api/hello")
			.jsonPath("$.policy").isEqualTo("gateway-hello")
			.jsonPath("$['violated-policies']").isEqualTo(List.of("gateway-hello"));
		// the refused request never reached the upstream
		assertThat(upstream.received("/api/hello")).isEqualTo(5);
	}

	@Test
	void ordersRouteAdmitsTenRequestsPerFreeKeyAcrossItsPathsThenRefusesOnThePlan() {
		String first = "key-" + UUID.randomUUID();
		admitThenRefuse("free", 10, first);
		admitThenRefuse("free", 10, "key-" + UUID.randomUUID());
		this.client.get().uri("/api/orders/7").header("X-Api-Key", first).exchange()
			.expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
	}

	@Test
	void ordersRouteAdmitsOneHundredRequestsPerProKeyThenRefusesOnThePlan() {
		admitThenRefuse("pro", 100, "pro-" + UUID.randomUUID());
	}

	@Test
	void keyThatOnlyContainsProIsOnTheFreePlan() {
		admitThenRefuse("free", 10, "my-pro-" + UUID.randomUUID());
	}

	/** A service the starter limits too, as the sample app, sends headers of its own: the client gets both sets. */
	@Test
	void rateLimitHeadersOfTheUpstreamComeAfterTheGateways() {
		this.client.get().uri("/api/orders").header("X-Api-Key", "key-" + UUID.randomUUID())
			.header(UpstreamStub.ECHOED + "RateLimit-Policy", "\"orders-free\";q=10;w=60")
			.header(UpstreamStub.ECHOED + "X-RateLimit-Limit", "10")
			.exchange()
			.expectStatus().isOk()
			.expectHeader().valueEquals("RateLimit-Policy", "\"gateway-orders-free\";q=10;w=3600",
					"\"orders-free\";q=10;w=60")
			.expectHeader().valueEquals("X-RateLimit-Limit", "10", "10");
	}

	@Test
	void routeWithoutPolicyIsNeverLimited() {
		for (int i = 0; i < 25; i++) {
			this.client.get().uri("/api/unlimited").exchange()
				.expectStatus().isOk()
				.expectHeader().doesNotExist("RateLimit-Policy")
				.expectHeader().doesNotExist("X-RateLimit-Limit")
				.expectBody().json("{\"path\":\"/api/unlimited\"}");
		}
		assertThat(upstream.received("/api/unlimited")).isEqualTo(25);
	}

	@Test
	void actuatorShowsHealthMetricsPoliciesAndRoutes() {
		this.client.get().uri("/actuator/health").exchange()
			.expectStatus().isOk()
			.expectBody()
			.jsonPath("$.status").isEqualTo("UP")
			.jsonPath("$.components.redis.status").isEqualTo("UP")
			.jsonPath("$.components.rateLimiter.status").isEqualTo("UP");
		this.client.get().uri("/actuator/prometheus").exchange()
			.expectStatus().isOk()
			.expectHeader().contentTypeCompatibleWith(MediaType.TEXT_PLAIN);
		this.client.get().uri("/actuator/ratelimits").exchange()
			.expectStatus().isOk()
			.expectBody()
			.jsonPath("$.policies.gateway-hello").exists()
			.jsonPath("$.policies.gateway-orders").exists();
		this.client.get().uri("/actuator/gateway/routes").exchange()
			.expectStatus().isOk()
			.expectBody()
			.jsonPath("$[*].route_id").value((List<String> ids) -> assertThat(ids)
				.containsExactlyInAnyOrder("hello", "orders", "unlimited"))
			.jsonPath("$[?(@.route_id == 'hello')].filters[*]").value((List<String> filters) -> assertThat(filters)
				.singleElement(InstanceOfAssertFactories.STRING).contains("RateLimit", "gateway-hello"));
		// read-only: the endpoint's writes do not exist
		this.client.post().uri("/actuator/gateway/refresh").exchange()
			.expectStatus().isNotFound();
	}

	/**
	 * Sends a client's requests, alternating between {@code /api/orders} and a path below it (one route, one policy),
	 * until its plan's capacity is spent, then one more, which is refused naming the plan.
	 */
	private void admitThenRefuse(String plan, int capacity, String apiKey) {
		String item = "\"gateway-orders-" + plan + "\"";
		for (int remaining = capacity - 1; remaining >= 0; remaining--) {
			String path = (remaining % 2 == 0) ? "/api/orders" : "/api/orders/" + remaining;
			this.client.get().uri(path).header("X-Api-Key", apiKey).exchange()
				.expectStatus().isOk()
				.expectHeader().valueEquals("RateLimit-Policy", item + ";q=" + capacity + ";w=3600")
				.expectHeader().valueMatches("RateLimit", item + ";r=" + remaining + ";t=[0-9]+")
				.expectHeader().valueEquals("X-RateLimit-Remaining", Integer.toString(remaining))
				.expectBody().json("{\"path\":\"" + path + "\"}");
		}
		this.client.get().uri("/api/orders").header("X-Api-Key", apiKey).exchange()
			.expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
			.expectHeader().valueEquals("RateLimit-Policy", item + ";q=" + capacity + ";w=3600")
			.expectHeader().exists("Retry-After")
			.expectHeader().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON)
			.expectBody()
			.jsonPath("$.type").isEqualTo(QUOTA_EXCEEDED)
			.jsonPath("$.instance").isEqualTo("/api/orders")
			.jsonPath("$.policy").isEqualTo("gateway-orders")
			.jsonPath("$.plan").isEqualTo(plan)
			.jsonPath("$['violated-policies']").isEqualTo(List.of("gateway-orders-" + plan));
	}

}
