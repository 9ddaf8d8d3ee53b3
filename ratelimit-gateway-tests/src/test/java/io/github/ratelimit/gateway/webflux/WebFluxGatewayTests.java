package io.github.ratelimit.gateway.webflux;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Pattern;

import io.github.ratelimit.test.TestRedis;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.reactive.server.EntityExchangeResult;
import org.springframework.test.web.reactive.server.WebTestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * A Spring Cloud Gateway (WebFlux server) configured only in YAML ({@code webflux-gateway.yml}), over real HTTP on
 * the test Redis, with BlockHound installed: routes that name policies in a {@code RateLimit} filter are limited as
 * the WebFlux filter limits {@code paths}, byte for byte; a route without one is not; a route on the gateway's
 * {@code RequestRateLimiter} with the policy rate limiter and a {@code KeyResolver} is limited by its policy.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, classes = WebFluxGatewayApplication.class,
		properties = "spring.config.name=webflux-gateway")
class WebFluxGatewayTests {

	@LocalServerPort
	private int port;

	@Autowired
	private MeterRegistry meters;

	private WebTestClient client;

	@DynamicPropertySource
	static void properties(DynamicPropertyRegistry properties) {
		gateway(properties, TestRedis.get().port());
	}

	/**
	 * What every test gateway is started with: the upstream, a Redis, a key prefix of its own and the tests'
	 * generous decision timeout.
	 */
	static void gateway(DynamicPropertyRegistry properties, int redisPort) {
		properties.add("upstream.uri", Upstream::uri);
		properties.add("spring.data.redis.host", () -> TestRedis.get().host());
		properties.add("spring.data.redis.port", () -> redisPort);
		properties.add("ratelimit.key-prefix", () -> "webflux-gateway-tests-" + UUID.randomUUID());
		properties.add("ratelimit.timeout", () -> TestRedis.TIMEOUT.toMillis() + "ms");
	}

	@BeforeEach
	void client() {
		this.client = client(this.port);
	}

	static WebTestClient client(int port) {
		return WebTestClient.bindToServer()
			.baseUrl("http://localhost:" + port)
			.responseTimeout(Duration.ofSeconds(60))
			.build();
	}

	@Test
	void routeWithRateLimitFilterAdmitsTheLimitThenRefusesWithHeadersAndProblem() {
		for (int remaining = 2; remaining >= 0; remaining--) {
			this.client.get().uri("/limited/a").exchange()
				.expectStatus().isOk()
				.expectHeader().valueEquals("RateLimit-Policy", "\"limited\";q=3;w=3600")
				.expectHeader().valueMatches("RateLimit", "\"limited\";r=" + remaining + ";t=[0-9]+")
				.expectBody(String.class).isEqualTo("upstream");
		}
		this.client.get().uri("/limited/a").exchange()
			.expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
			.expectHeader().exists(HttpHeaders.RETRY_AFTER)
			.expectHeader().valueEquals("RateLimit-Policy", "\"limited\";q=3;w=3600")
			.expectHeader().contentType("application/problem+json")
			.expectBody()
			.jsonPath("$.policy").isEqualTo("limited")
			.jsonPath("$.instance").isEqualTo("/limited/a")
			.jsonPath("$['violated-policies']").isEqualTo(List.of("limited"));
		assertThat(this.meters.get("ratelimit.requests").tag("policy", "limited").tag("outcome", "denied")
			.counter().count()).isEqualTo(1);
		assertThat(this.meters.get("ratelimit.requests").tag("policy", "limited").tag("outcome", "allowed")
			.counter().count()).isEqualTo(3);
		this.client.get().uri("/actuator/ratelimits").exchange()
			.expectStatus().isOk()
			.expectBody()
			.jsonPath("$.policies.limited.denied").isEqualTo(1)
			.jsonPath("$.policies.limited.allowed").isEqualTo(3);
	}

	@Test
	void routeOfAPolicyThatMayWaitHoldsItsRequestsUntilTheirPermit() {
		long start = System.nanoTime(); // before the first permit: the third comes 400 ms after it
		for (int i = 0; i < 3; i++) {
			this.client.get().uri("/paced/a").exchange().expectStatus().isOk();
		}
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(350));
	}

	@Test
	void routeWithoutRateLimitFilterIsNotLimited() {
		for (int i = 0; i < 10; i++) {
			this.client.get().uri("/open/a").exchange()
				.expectStatus().isOk()
				.expectHeader().doesNotExist("RateLimit")
				.expectHeader().doesNotExist("X-RateLimit-Limit");
		}
	}

	@Test
	void routePolicyAnswersByteForByteAsTheSamePolicyOnPaths() {
		for (int i = 0; i < 3; i++) {
			Response filtered = Response.of(this.client, "/contract-paths/x", "contract-paths");
			Response routed = Response.of(this.client, "/contract-route/x", "contract-route");
			assertThat(routed.withoutSeconds()).isEqualTo(filtered.withoutSeconds());
			assertThat(routed.seconds()).isNotEmpty().hasSameSizeAs(filtered.seconds());
			for (int j = 0; j < filtered.seconds().size(); j++) {
				assertThat(routed.seconds().get(j)).isCloseTo(filtered.seconds().get(j), within(1L));
			}
			assertThat(filtered.status()).isEqualTo((i < 2) ? 200 : 429);
		}
	}

	@Test
	void planOfTheKeyIsApplied() {
		String pro = "pro-" + UUID.randomUUID();
		String free = "key-" + UUID.randomUUID();
		admitThenRefuse("/plans/a", pro, 4, "\"plans-pro\"");
		admitThenRefuse("/plans/a", free, 2, "\"plans-free\"");
	}

	@Test
	void everyPolicyOfAMultiPolicyRouteApplies() {
		String first = "first-" + UUID.randomUUID();
		String second = "second-" + UUID.randomUUID();
		get("/multi/a", first).expectStatus().isOk();
		get("/multi/a", first).expectStatus().isOk();
		get("/multi/a", first).expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
			.expectBody().jsonPath("$.policy").isEqualTo("multi-key");
		get("/multi/a", second).expectStatus().isOk();
		get("/multi/a", second).expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
			.expectBody().jsonPath("$.policy").isEqualTo("multi-ip");
	}

	@Test
	void routePolicyWithMethodsLimitsOnlyThoseMethods() {
		for (int i = 0; i < 3; i++) {
			this.client.get().uri("/posts/a").exchange()
				.expectStatus().isOk()
				.expectHeader().doesNotExist("RateLimit");
		}
		this.client.post().uri("/posts/a").exchange().expectStatus().isOk();
		this.client.post().uri("/posts/a").exchange().expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
	}

	@Test
	void javaDslRouteIsLimitedByItsPolicy() {
		this.client.get().uri("/dsl/a").exchange().expectStatus().isOk();
		this.client.get().uri("/dsl/a").exchange().expectStatus().isOk();
		this.client.get().uri("/dsl/a").exchange()
			.expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
			.expectBody().jsonPath("$.policy").isEqualTo("dsl");
	}

	@Test
	void requestRateLimiterWithPolicyRateLimiterLimitsByTheRoutesKeyResolver() {
		String first = "first-" + UUID.randomUUID();
		for (int remaining = 1; remaining >= 0; remaining--) {
			get("/bridged/a", first).expectStatus().isOk()
				.expectHeader().valueEquals("RateLimit-Policy", "\"bridged-basic\";q=2;w=3600")
				.expectHeader().valueMatches("RateLimit", "\"bridged-basic\";r=" + remaining + ";t=[0-9]+");
		}
		get("/bridged/a", first).expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
			.expectHeader().valueEquals("RateLimit-Policy", "\"bridged-basic\";q=2;w=3600")
			.expectHeader().valueMatches("RateLimit", "\"bridged-basic\";r=0;t=[0-9]+")
			.expectHeader().exists(HttpHeaders.RETRY_AFTER)
			.expectBody().isEmpty();
		assertThat(this.meters.get("ratelimit.requests").tag("policy", "bridged").tag("outcome", "denied")
			.counter().count()).isEqualTo(1);
		this.client.get().uri("/bridged/a").header("X-Api-Key", "second-" + UUID.randomUUID())
			.header("X-Plan", "gold").exchange()
			.expectStatus().isOk()
			.expectHeader().valueEquals("RateLimit-Policy", "\"bridged-gold\";q=3;w=3600");
	}

	private void admitThenRefuse(String path, String apiKey, int capacity, String item) {
		for (int remaining = capacity - 1; remaining >= 0; remaining--) {
			get(path, apiKey).expectStatus().isOk()
				.expectHeader().valueEquals("RateLimit-Policy", item + ";q=" + capacity + ";w=3600")
				.expectHeader().valueMatches("RateLimit", item + ";r=" + remaining + ";t=[0-9]+");
		}
		get(path, apiKey).expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
			.expectBody().jsonPath("$['violated-policies']").isEqualTo(List.of(item.replace("\"", "")));
	}

	private WebTestClient.ResponseSpec get(String path, String apiKey) {
		return this.client.get().uri(path).header("X-Api-Key", apiKey).exchange();
	}

	/**
	 * A response as a client sees it, but for its {@code Date}, with a name in it written as another, so that the
	 * answers of two policies of the same limits compare equal.
	 */
	record Response(int status, Map<String, List<String>> headers, String body) {

		/** Seconds counted from the decision's time: one request later, they may be a second fewer. */
		private static final Pattern SECONDS = Pattern
			.compile("(?<=t=|retry in )[0-9]+|(?<=retry-after=\\[|x-ratelimit-reset=\\[)[0-9]+");

		/**
		 * This response as text, its seconds counted from the decision's time left out.
		 * @return the text
		 */
		String withoutSeconds() {
			return SECONDS.matcher(toString()).replaceAll("<s>");
		}

		/**
		 * The seconds {@link #withoutSeconds()} leaves out.
		 * @return the seconds, in order
		 */
		List<Long> seconds() {
			return SECONDS.matcher(toString()).results().map((found) -> Long.parseLong(found.group())).toList();
		}

		static Response of(WebTestClient client, String path, String name) {
			EntityExchangeResult<byte[]> result = client.get().uri(path).exchange().expectBody().returnResult();
			Map<String, List<String>> headers = new LinkedHashMap<>();
			result.getResponseHeaders().forEach((header, values) -> {
				if (!header.equalsIgnoreCase(HttpHeaders.DATE)) {
					headers.put(header.toLowerCase(), values.stream().map((value) -> anonymous(value, name)).toList());
				}
			});
			byte[] body = result.getResponseBodyContent();
			return new Response(result.getStatus().value(), headers,
					(body != null) ? anonymous(new String(body, StandardCharsets.UTF_8), name) : "");
		}

		private static String anonymous(String text, String name) {
			return text.replace(name, "<policy>");
		}

	}

}
