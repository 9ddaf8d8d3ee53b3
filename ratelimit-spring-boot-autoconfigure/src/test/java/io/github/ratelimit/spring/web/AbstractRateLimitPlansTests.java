package io.github.ratelimit.spring.web;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.github.ratelimit.test.ProblemBodies;
import io.github.ratelimit.test.RunningServer;
import io.github.ratelimit.test.TestRedisProperties;
import io.github.ratelimit.test.WireResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestInstance.Lifecycle;

import org.springframework.boot.WebApplicationType;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Plans over HTTP on a real Redis, end to end on each web stack: a client gets its plan's limits, picked by a
 * {@code PlanResolver} bean or an {@code expr:} strategy, now or later (the exchange resuming where it should), and the
 * headers and the problem body of a refusal name the plan; a resolver that fails gives the default plan, never a
 * 500. The plans' cases (counting by plan, a client moved to another plan, the deny cache) are tested once, through
 * the chain every adapter uses, in {@code RateLimitPlansChainTests}.
 */
@TestInstance(Lifecycle.PER_CLASS)
abstract class AbstractRateLimitPlansTests {

	private final WebApplicationType type;

	private final Class<?>[] sources;

	private RunningServer server;

	/**
	 * Tests a server of {@link PlansTestApplication}.
	 * @param type the web stack
	 * @param more more configuration of the application
	 */
	AbstractRateLimitPlansTests(WebApplicationType type, Class<?>... more) {
		this.type = type;
		this.sources = new Class<?>[more.length + 1];
		this.sources[0] = PlansTestApplication.class;
		System.arraycopy(more, 0, this.sources, 1, more.length);
	}

	/**
	 * Starts the server on the test Redis, under a key prefix of its own, with the deny cache on.
	 */
	@BeforeAll
	void startServer() {
		List<String> properties = new ArrayList<>(List.of(PlansTestApplication.POLICIES));
		properties.add("ratelimit.key-prefix=" + TestRedisProperties.uniquePrefix());
		properties.add("ratelimit.deny-cache.enabled=true");
		this.server = RunningServer.start(this.type, this.sources, properties.toArray(String[]::new));
	}

	@AfterAll
	void stopServer() {
		this.server.close();
	}

	/**
	 * The server the tests send their requests to.
	 * @return the server
	 */
	RunningServer server() {
		return this.server;
	}

	@Test
	void eachClientShouldGetItsPlansLimitsInTheResponses() {
		String free = "free-" + UUID.randomUUID();
		assertAdmitted("orders", free, "free", 10);
		assertRefused("orders", free, "free", 10);
		assertAdmitted("search", "pro-" + UUID.randomUUID(), "pro", 1);
	}

	@Test
	void resolverThatAnswersLaterShouldPickThePlan() {
		assertAdmitted("later", "pro-" + UUID.randomUUID(), "pro", 1);
		assertAdmitted("later", "free-" + UUID.randomUUID(), "free", 1);
	}

	@Test
	void resolverThatFailsNowOrLaterShouldGiveTheDefaultPlanNeverAnError() {
		assertAdmitted("flaky", "boom-" + UUID.randomUUID(), "free", 1);
		assertAdmitted("later", "boom-" + UUID.randomUUID(), "free", 1);
	}

	/**
	 * Sends requests that the client's plan admits, each showing the plan's item and the permits left.
	 */
	private void assertAdmitted(String policy, String key, String plan, int requests) {
		String item = "\"" + policy + "-" + plan + "\"";
		long capacity = capacity(plan);
		for (int i = 1; i <= requests; i++) {
			WireResponse response = get(policy, key);
			assertThat(response.status()).as("status of %s", response).isEqualTo(200);
			assertThat(response.value("RateLimit-Policy")).as("RateLimit-Policy of %s", response)
				.isEqualTo(item + ";q=" + capacity + ";w=3600");
			assertThat(response.value("RateLimit")).as("RateLimit of %s", response)
				.startsWith(item + ";r=" + (capacity - i) + ";");
		}
	}

	/**
	 * Sends a request that the client's plan refuses, and checks that the refusal names the plan.
	 */
	private void assertRefused(String policy, String key, String plan, long capacity) {
		WireResponse response = get(policy, key);
		assertThat(response.status()).as("status of %s", response).isEqualTo(429);
		String item = policy + "-" + plan;
		assertThat(response.value("RateLimit-Policy")).as("RateLimit-Policy of %s", response)
			.isEqualTo("\"" + item + "\";q=" + capacity + ";w=3600");
		Map<String, Object> problem = ProblemBodies.of(response.body().getBytes());
		assertThat(problem).containsEntry("policy", policy)
			.containsEntry("plan", plan)
			.containsEntry("violated-policies", List.of(item));
	}

	private WireResponse get(String policy, String key) {
		return ResponseHeaderRules.check(WireResponse.get(server().port(), "/" + policy + "/items", "X-Api-Key", key));
	}

	private static long capacity(String plan) {
		return plan.equals("pro") ? 100 : 10;
	}

}
