package io.github.ratelimit.operations;

import java.net.http.HttpResponse;
import java.util.UUID;

import io.github.ratelimit.core.StorageKeys;
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
 * a client's state, its reset where access allows it, health and metrics. Each test uses a client of its own and
 * compares counts before and after, so no test depends on which ran before it.
 */
@SpringBootTest(classes = OperationsTestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "management.metrics.distribution.percentiles-histogram.ratelimit.latency=true",
				"ratelimit.policies.hello.limits=3/1h", "ratelimit.policies.hello.paths=/hello",
				"ratelimit.policies.hello.key=header:X-Client",
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
	void endpointCountsWhatClientsSaw() {
		HttpProbe http = new HttpProbe(this.port);
		JsonNode before = hello(http);
		String client = newClient();
		int ok = 0;
		int refused = 0;
		for (int i = 0; i < 5; i++) {
			int status = http.get("/hello", "X-Client", client).statusCode();
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
		assertThat(hello.get("key").asString()).isEqualTo("header:X-Client");
		assertThat(hello.get("paths").get(0).asString()).isEqualTo("/hello");
		assertThat(hello.get("shadow").asBoolean()).isFalse();
		// counts are this instance's since start: other tests' requests are in them too
		assertThat(hello.get("allowed").asLong() - before.get("allowed").asLong()).isEqualTo(3);
		assertThat(hello.get("denied").asLong() - before.get("denied").asLong()).isEqualTo(2);
		assertThat(hello.get("failed").asLong()).isZero();
	}

	@Test
	void readingAClientsStateConsumesNothing() {
		HttpProbe http = new HttpProbe(this.port);
		String client = newClient();
		assertThat(http.get("/hello", "X-Client", client).statusCode()).isEqualTo(200);
		JsonNode before = hello(http);
		for (int i = 0; i < 5; i++) {
			JsonNode state = body(http.get("/actuator/ratelimits/hello/" + client));
			assertThat(state.get("capacity").asLong()).isEqualTo(3);
			assertThat(state.get("remaining").asLong()).as("remaining after %d reads", i).isEqualTo(2);
			assertThat(state.get("retryAfterSeconds").asLong()).isZero();
		}
		JsonNode after = hello(http);
		assertThat(after.get("allowed").asLong()).isEqualTo(before.get("allowed").asLong());
		assertThat(after.get("denied").asLong()).isEqualTo(before.get("denied").asLong());
		HttpResponse<String> next = http.get("/hello", "X-Client", client);
		assertThat(next.statusCode()).isEqualTo(200);
		assertThat(next.headers().firstValue("X-RateLimit-Remaining")).hasValue("1");
	}

	/**
	 * An IPv6 client's {@code ip} key is its prefix ({@code 2001:db8:1:2::/64}): its slash is part of the key, so an
	 * operator can read and reset that client through the path.
	 */
	@Test
	void aKeyWithASlashSuchAsAnIpv6PrefixCanBeReadAndReset() {
		HttpProbe http = new HttpProbe(this.port);
		String client = "2001:db8:" + Integer.toHexString(UUID.randomUUID().hashCode() & 0xffff) + ":2::/64";
		for (int i = 0; i < 3; i++) {
			assertThat(http.get("/hello", "X-Client", client).statusCode()).isEqualTo(200);
		}
		HttpResponse<String> read = http.get("/actuator/ratelimits/hello/" + client);
		assertThat(read.statusCode()).isEqualTo(200);
		assertThat(body(read).get("key").asString()).isEqualTo(StorageKeys.hashed(client));
		assertThat(body(read).get("remaining").asLong()).isZero();
		HttpResponse<String> reset = http.delete("/actuator/ratelimits/hello/" + client);
		assertThat(reset.statusCode()).isEqualTo(200);
		assertThat(body(reset).get("remaining").asLong()).isEqualTo(3);
		assertThat(http.get("/hello", "X-Client", client).statusCode()).isEqualTo(200);
	}

	@Test
	void deleteResetsAClientToItsFullCapacity() {
		HttpProbe http = new HttpProbe(this.port);
		String client = newClient();
		for (int i = 0; i < 3; i++) {
			assertThat(http.get("/hello", "X-Client", client).statusCode()).isEqualTo(200);
		}
		assertThat(http.get("/hello", "X-Client", client).statusCode()).isEqualTo(429);
		JsonNode exhausted = body(http.get("/actuator/ratelimits/hello/" + client));
		assertThat(exhausted.get("remaining").asLong()).isZero();
		assertThat(exhausted.get("retryAfterSeconds").asLong()).isPositive();

		HttpResponse<String> reset = http.delete("/actuator/ratelimits/hello/" + client);
		assertThat(reset.statusCode()).isEqualTo(200);
		assertThat(body(reset).get("remaining").asLong()).isEqualTo(3);
		HttpResponse<String> next = http.get("/hello", "X-Client", client);
		assertThat(next.statusCode()).isEqualTo(200);
		assertThat(next.headers().firstValue("X-RateLimit-Remaining")).hasValue("2");
	}

	@Test
	void unknownPolicyIsNotFound() {
		HttpProbe http = new HttpProbe(this.port);
		assertThat(http.get("/actuator/ratelimits/nope/127.0.0.1").statusCode()).isEqualTo(404);
	}

	@Test
	void annotationPoliciesAppearOnceUsed() {
		HttpProbe http = new HttpProbe(this.port);
		// a method only this test calls, so its count does not depend on which tests ran before
		assertThat(http.get("/listed").statusCode()).isEqualTo(200);
		JsonNode listed = body(http.get("/actuator/ratelimits")).get("policies").get("listed");
		assertThat(listed.get("limits").get(0).asString()).isEqualTo("2/1h");
		assertThat(listed.get("paths")).isEmpty();
		assertThat(listed.get("allowed").asLong()).isEqualTo(1);
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
		assertThat(metric.get("availableTags").toString()).contains("outcome", "policy", "allowed", "plan", "none");
		assertThat(http.get("/actuator/metrics/ratelimit.latency").statusCode()).isEqualTo(200);
		String prometheus = http.get("/actuator/prometheus").body();
		assertThat(prometheus)
			.contains("ratelimit_requests_total{outcome=\"allowed\",plan=\"none\",policy=\"annotated\"}")
			.contains("ratelimit_latency_seconds_bucket");
	}

	private static JsonNode hello(HttpProbe http) {
		return body(http.get("/actuator/ratelimits")).get("policies").get("hello");
	}

	private static String newClient() {
		return "client-" + UUID.randomUUID();
	}

	private static JsonNode body(HttpResponse<String> response) {
		return json.readTree(response.body());
	}

}
