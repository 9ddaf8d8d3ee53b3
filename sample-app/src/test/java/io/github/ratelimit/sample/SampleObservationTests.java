package io.github.ratelimit.sample;

import java.util.UUID;

import io.github.ratelimit.test.TestRedis;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureRestTestClient;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.client.RestTestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * With Actuator, each decision's observation becomes a timer {@code ratelimit.decision} tagged by policy, plan,
 * backend and outcome (and a long task timer {@code ratelimit.decision.active}), shown by {@code /actuator/prometheus}
 * beside the starter's own meters.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = "sample.embedded-redis=never")
@AutoConfigureRestTestClient
class SampleObservationTests {

	private static final String KEY_PREFIX = "sample-observation-tests-" + UUID.randomUUID();

	@Autowired
	private RestTestClient client;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		TestRedis redis = TestRedis.get();
		registry.add("spring.data.redis.host", redis::host);
		registry.add("spring.data.redis.port", redis::port);
		registry.add("ratelimit.key-prefix", () -> KEY_PREFIX);
		registry.add("ratelimit.observations.enabled", () -> "true");
	}

	@Test
	void prometheusShowsEachDecisionAsTimerTaggedByPolicyPlanBackendAndOutcome() {
		this.client.get().uri("/api/hello").exchange().expectStatus().isOk();
		this.client.get().uri("/actuator/prometheus").exchange()
			.expectStatus().isOk()
			.expectBody(String.class)
			.value((body) -> assertThat(body)
				.containsPattern("ratelimit_decision_seconds_count\\{backend=\"redis\",[^}]*outcome=\"allowed\","
						+ "plan=\"none\",policy=\"hello\"} 1")
				.contains("ratelimit_decision_active_seconds")
				.containsPattern("ratelimit_latency_seconds_count\\{[^}]*policy=\"hello\"[^}]*} 1"));
	}

}
