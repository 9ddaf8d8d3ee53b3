package io.github.ratelimit.resilience;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import io.github.ratelimit.core.StorageKeys;
import io.github.ratelimit.test.TestRedis;
import io.github.ratelimit.test.TestRedis.EmbeddedRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Three application instances on one Redis, a policy of {@code 5/1h}: an override set through one instance's
 * endpoint is applied by the others within a second (the default refresh interval is half of it), admits exactly its
 * own capacity across all of them, ends at its expiry everywhere, is removed everywhere, and is seen by an instance
 * started later. Hour-long periods, so that no permit comes back while a test counts.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@ExtendWith(OutputCaptureExtension.class)
class OverridesAcrossInstancesTests {

	/** The promise: every instance applies a change within a second. */
	private static final Duration WITHIN = Duration.ofSeconds(1);

	private static final JsonMapper json = JsonMapper.builder().build();

	private static final String PREFIX = "overrides-" + UUID.randomUUID();

	private static EmbeddedRedis redis;

	private static final List<RunningApp> apps = new ArrayList<>();

	@BeforeAll
	static void startThreeInstances() {
		redis = EmbeddedRedis.start(TestRedis.freePort());
		for (int i = 0; i < 3; i++) {
			apps.add(start());
		}
	}

	@AfterAll
	static void stop() {
		try {
			apps.forEach(RunningApp::close);
		}
		finally {
			redis.stop();
		}
	}

	private static RunningApp start() {
		return RunningApp.start(redis.port(), "ratelimit.key-prefix=" + PREFIX,
				"ratelimit.timeout=" + TestRedis.TIMEOUT.toMillis() + "ms", "ratelimit.policies.hello.limits=5/1h",
				"ratelimit.policies.hello.paths=/hello", "ratelimit.policies.hello.key=header:X-Client",
				"management.endpoint.ratelimits.access=unrestricted");
	}

	@Test
	@Order(1)
	void anOverrideSetThroughOneInstanceIsAppliedByEveryInstanceWithinASecondAndAdmitsExactlyItsCapacity() {
		String client = newClient();
		assertThat(admitted(15, client)).as("the policy's own limit, across the instances").isEqualTo(5);

		HttpResponse<String> set = apps.get(0).post("/actuator/ratelimits/hello/" + client + "/override",
				"{\"limits\": \"50/1h\"}");
		Instant returned = Instant.now();
		assertThat(set.statusCode()).as(set.body()).isEqualTo(200);
		int admitted = 0;
		for (RunningApp app : apps) {
			admitted += awaitLimit(app, client, "50", returned);
		}
		admitted += admitted(80, client);
		assertThat(admitted).as("admitted under the override, across the instances").isEqualTo(50);

		HttpResponse<String> removed = apps.get(1).delete("/actuator/ratelimits/hello/" + client + "/override");
		Instant removedAt = Instant.now();
		assertThat(removed.statusCode()).as(removed.body()).isEqualTo(200);
		for (RunningApp app : apps) {
			assertThat(awaitLimit(app, client, "5", removedAt)).as("admitted on the exhausted policy").isZero();
		}
		assertThat(admitted(6, client)).isZero();
	}

	@Test
	@Order(2)
	void anOverrideEndsAtItsExpiryOnEveryInstance() throws InterruptedException {
		String client = newClient();
		assertThat(admitted(6, client)).isEqualTo(5);
		HttpResponse<String> set = apps.get(2).post("/actuator/ratelimits/hello/" + client + "/override",
				"{\"limits\": \"50/1h\", \"expiresIn\": \"2s\"}");
		Instant returned = Instant.now();
		assertThat(set.statusCode()).as(set.body()).isEqualTo(200);
		Instant expiresAt = Instant.parse(json.readTree(set.body()).get("override").get("expiresAt").asString());
		for (RunningApp app : apps) {
			assertThat(awaitLimit(app, client, "50", returned)).isOne();
		}
		Thread.sleep(Math.max(0, Duration.between(Instant.now(), expiresAt).toMillis()));
		for (RunningApp app : apps) {
			assertThat(awaitLimit(app, client, "5", expiresAt)).as("admitted on the exhausted policy").isZero();
		}
		assertThat(admitted(9, client)).isZero();
	}

	@Test
	@Order(3)
	void anInstanceStartedLaterAppliesTheOverridesInForceFromItsFirstRequest() {
		String client = newClient();
		apps.get(0).post("/actuator/ratelimits/hello/" + client + "/override", "{\"limits\": \"50/1h\"}");
		try (RunningApp later = start()) {
			HttpResponse<String> first = later.get("/hello", "X-Client", client);
			assertThat(first.statusCode()).isEqualTo(200);
			assertThat(first.headers().firstValue("X-RateLimit-Limit")).hasValue("50");
		}
	}

	/**
	 * While Redis is down, a change cannot be made: the endpoint says so (503) and changes nothing, while it still
	 * lists the overrides it read last. Polling logs once that it fails and once that it works again.
	 */
	@Test
	@Order(4)
	void whileRedisIsDownAChangeIsRefusedWithTheReason(CapturedOutput output) {
		String client = newClient();
		String kept = newClient();
		apps.get(1).post("/actuator/ratelimits/hello/" + kept + "/override", "{\"limits\": \"50/1h\"}");
		redis.stop();
		try {
			HttpResponse<String> listed = apps.get(1).get("/actuator/ratelimits/hello");
			assertThat(listed.statusCode()).as(listed.body()).isEqualTo(200);
			assertThat(listed.body()).as("the last overrides read, still in force")
				.contains(StorageKeys.hashed(kept));
			HttpResponse<String> set = apps.get(0).post("/actuator/ratelimits/hello/" + client + "/override",
					"{\"limits\": \"50/1h\"}");
			assertThat(set.statusCode()).as(set.body()).isEqualTo(503);
			assertThat(json.readTree(set.body()).get("error").asString())
				.startsWith("The overrides' store could not be reached, nothing was changed: ");
			HttpResponse<String> remove = apps.get(0).delete("/actuator/ratelimits/hello/" + client + "/override");
			assertThat(remove.statusCode()).as(remove.body()).isEqualTo(503);
			awaitOutput(output, "Rate limit overrides cannot be read from Redis; the last ones read stay in force");
		}
		finally {
			redis.restart();
		}
		awaitOutput(output, "Rate limit overrides are read from Redis again");
	}

	/**
	 * Sends a client's requests to each instance until it answers with the limit given; the first must come within a
	 * second of the change.
	 * @return the requests admitted meanwhile
	 */
	private static int awaitLimit(RunningApp app, String client, String limit, Instant changed) {
		int admitted = 0;
		while (true) {
			HttpResponse<String> response = app.get("/hello", "X-Client", client);
			assertThat(response.statusCode()).isIn(200, 429);
			if (limit.equals(response.headers().firstValue("X-RateLimit-Limit").orElse(null))) {
				assertThat(Duration.between(changed, Instant.now())).as("time until an instance applied the change")
					.isLessThan(WITHIN);
				return admitted + ((response.statusCode() == 200) ? 1 : 0);
			}
			assertThat(Duration.between(changed, Instant.now())).as("time waited for an instance to apply the change")
				.isLessThan(WITHIN);
		}
	}

	/** Sends a client's requests to the instances in turn, counting those admitted. */
	private static int admitted(int requests, String client) {
		int admitted = 0;
		for (int i = 0; i < requests; i++) {
			int status = apps.get(i % apps.size()).get("/hello", "X-Client", client).statusCode();
			assertThat(status).isIn(200, 429);
			admitted += (status == 200) ? 1 : 0;
		}
		return admitted;
	}

	private static void awaitOutput(CapturedOutput output, String line) {
		Instant deadline = Instant.now().plusSeconds(20);
		while (!output.getOut().contains(line) && !output.getErr().contains(line)) {
			assertThat(Instant.now()).as("time waited for the log line '%s'", line).isBefore(deadline);
			try {
				Thread.sleep(50);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
		}
	}

	private static String newClient() {
		return "client-" + UUID.randomUUID();
	}

}
