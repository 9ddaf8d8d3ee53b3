package io.github.ratelimit.operations;

import java.net.http.HttpResponse;
import io.github.ratelimit.test.HttpProbe;
import io.github.ratelimit.test.TestRedisProperties;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The operator's view of a running application on a real Redis: the {@code ratelimits} endpoint with its counts,
 * a client's state, its reset where access allows it, health and metrics.
 */
@SpringBootTest(classes = OperationsTestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "management.metrics.distribution.percentiles-histogram.ratelimit.latency=true",
				"ratelimit.policies.hello.limits=3/1h", "ratelimit.policies.hello.paths=/hello",
				"management.endpoints.web.exposure.include=health,metrics,prometheus,ratelimits",
				"management.endpoint.health.show-details=always",
				"management.endpoint.ratelimits.access=unrestricted" })
class OperationsEndpointTests {

	private static final JsonMapper json = JsonMapper.builder().build();

	@LocalServerPort
	private int port;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		TestRedisProperties.register(registry);
	}

	@Test
	void endpointCountsWhatClientsSawAndResetsAClient() {
		HttpProbe http = new HttpProbe(this.port);
		int ok = 0;
		int refused = 0;
		for (int i = 0; i < 5; i++) {
			int status = http.get("/hello").statusCode();
			ok += (status == 200) ? 1 : 0;
			refused += (status == 429) ? 1 : 0;
		}
		assertThat(ok).isEqualTo(3);
		assertThat(refused).isEqualTo(2);

		JsonNode report = body(http.get("/actuator/ratelimits"));
		assertThat(report.get("backend").asString()).isEqualTo("redis");
		assertThat(report.get("failureMode").asString()).isEqualTo("open");
		JsonNode hello = report.get("policies").get("hello");
		assertThat(hello.get("algorithm").asString()).isEqualTo("token-bucket");
		assertThat(hello.get("limits").get(0).asString()).isEqualTo("3/1h");
		assertThat(hello.get("key").asString()).isEqualTo("ip");
		assertThat(hello.get("paths").get(0).asString()).isEqualTo("/hello");
		assertThat(hello.get("shadow").asBoolean()).isFalse();
		assertThat(hello.get("allowed").asLong()).isEqualTo(3);
		assertThat(hello.get("denied").asLong()).isEqualTo(2);
		assertThat(hello.get("failed").asLong()).isZero();

		JsonNode client = body(http.get("/actuator/ratelimits/hello/127.0.0.1"));
		assertThat(client.get("remaining").asLong()).isZero();
		assertThat(client.get("capacity").asLong()).isEqualTo(3);
		assertThat(client.get("retryAfterSeconds").asLong()).isPositive();
		// reading the state consumed nothing: still exactly 2 refusals counted
		assertThat(body(http.get("/actuator/ratelimits")).get("policies").get("hello").get("denied").asLong())
			.isEqualTo(2);

		HttpResponse<String> reset = http.delete("/actuator/ratelimits/hello/127.0.0.1");
		assertThat(reset.statusCode()).isEqualTo(200);
		assertThat(body(reset).get("remaining").asLong()).isEqualTo(3);
		assertThat(http.get("/hello").statusCode()).isEqualTo(200);
	}

	@Test
	void unknownPolicyIsNotFound() {
		HttpProbe http = new HttpProbe(this.port);
		assertThat(http.get("/actuator/ratelimits/nope/127.0.0.1").statusCode()).isEqualTo(404);
	}

	@Test
	void annotationPoliciesAppearOnceUsed() {
		HttpProbe http = new HttpProbe(this.port);
		assertThat(http.get("/annotated").statusCode()).isEqualTo(200);
		JsonNode annotated = body(http.get("/actuator/ratelimits")).get("policies").get("annotated");
		assertThat(annotated.get("limits").get(0).asString()).isEqualTo("2/1h");
		assertThat(annotated.get("paths")).isEmpty();
		assertThat(annotated.get("allowed").asLong()).isEqualTo(1);
	}

	@Test
	void healthIsUpWhileRedisAnswers() {
		HttpResponse<String> health = new HttpProbe(this.port).get("/actuator/health/rateLimiter");
		assertThat(health.statusCode()).isEqualTo(200);
		JsonNode body = body(health);
		assertThat(body.get("status").asString()).isEqualTo("UP");
		assertThat(body.get("details").get("backend").asString()).isEqualTo("redis");
		assertThat(body.get("details").get("failureMode").asString()).isEqualTo("open");
	}

	@Test
	void requestsMetricIsPublishedWithItsOutcomeTag() {
		HttpProbe http = new HttpProbe(this.port);
		http.get("/annotated");
		JsonNode metric = body(http.get("/actuator/metrics/ratelimit.requests"));
		assertThat(metric.get("availableTags").toString()).contains("outcome", "policy", "allowed");
		assertThat(http.get("/actuator/metrics/ratelimit.latency").statusCode()).isEqualTo(200);
		String prometheus = http.get("/actuator/prometheus").body();
		assertThat(prometheus).contains("ratelimit_requests_total{outcome=\"allowed\",policy=\"annotated\"}")
			.contains("ratelimit_latency_seconds_bucket");
	}

	private static JsonNode body(HttpResponse<String> response) {
		return json.readTree(response.body());
	}

}
