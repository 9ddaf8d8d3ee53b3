package io.github.ratelimit.spring.web;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.github.ratelimit.spring.metrics.RateLimitMetrics;
import io.github.ratelimit.spring.web.PlansTestApplication.CustomerPlans;
import io.github.ratelimit.test.ProblemBodies;
import io.github.ratelimit.test.RunningServer;
import io.github.ratelimit.test.TestRedisProperties;
import io.github.ratelimit.test.WireResponse;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestInstance.Lifecycle;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.WebApplicationType;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Plans over HTTP on a real Redis, the behaviour both web stacks must show: a client gets its plan's limits, picked
 * by a {@code PlanResolver} bean or an {@code expr:} strategy; the headers, the problem body of a refusal and the
 * {@code ratelimit.requests} counters name the plan; a client moved to another plan starts fresh on it (neither its
 * old plan's state nor the deny cache's memory of its refusals follows it); a resolver that fails or names a plan the
 * policy lacks gives the default plan, never a 500.
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

	@ParameterizedTest
	@ValueSource(strings = { "orders", "search" })
	void clientOnTheFreePlanShouldBeAdmittedTheFreePlansLimit(String policy) {
		String key = "free-" + UUID.randomUUID();
		assertAdmitted(policy, key, "free", 10);
		assertRefused(policy, key, "free", 10);
	}

	@ParameterizedTest
	@ValueSource(strings = { "orders", "search" })
	void clientOnTheProPlanShouldBeAdmittedTheProPlansLimit(String policy) {
		String key = "pro-" + UUID.randomUUID();
		customers().put(key, "pro");
		assertAdmitted(policy, key, "pro", 100);
		assertRefused(policy, key, "pro", 100);
	}

	@Test
	void requestsShouldBeCountedByPlan() {
		double proAllowed = count("pro", "allowed");
		double freeAllowed = count("free", "allowed");
		double freeDenied = count("free", "denied");
		String pro = "pro-" + UUID.randomUUID();
		String free = "free-" + UUID.randomUUID();
		customers().put(pro, "pro");
		assertAdmitted("orders", pro, "pro", 12);
		assertAdmitted("orders", free, "free", 10);
		assertRefused("orders", free, "free", 10);
		assertThat(count("pro", "allowed") - proAllowed).isEqualTo(12);
		assertThat(count("free", "allowed") - freeAllowed).isEqualTo(10);
		assertThat(count("free", "denied") - freeDenied).isEqualTo(1);
	}

	/**
	 * An upgrade starts the client fresh on its new plan, though its last requests on the old plan were refused and
	 * the deny cache remembers that; its old plan's state stays the old plan's.
	 */
	@Test
	void clientMovedToAnotherPlanShouldStartFreshOnIt() {
		String key = "customer-" + UUID.randomUUID();
		assertAdmitted("orders", key, "free", 10);
		assertRefused("orders", key, "free", 10);
		assertRefused("orders", key, "free", 10);
		customers().put(key, "pro");
		assertAdmitted("orders", key, "pro", 100);
		assertRefused("orders", key, "pro", 100);
		customers().put(key, "free");
		assertRefused("orders", key, "free", 10);
	}

	@ParameterizedTest
	@ValueSource(strings = { "boom-", "gold-" })
	void resolverThatFailsOrNamesAPlanThePolicyLacksShouldGiveTheDefaultPlan(String prefix) {
		String key = prefix + UUID.randomUUID();
		assertAdmitted("flaky", key, "free", 10);
		assertRefused("flaky", key, "free", 10);
	}

	@Test
	void resolverThatAnswersLaterShouldPickThePlan() {
		String pro = "pro-" + UUID.randomUUID();
		assertAdmitted("later", pro, "pro", 100);
		assertRefused("later", pro, "pro", 100);
		String free = "free-" + UUID.randomUUID();
		assertAdmitted("later", free, "free", 10);
		assertRefused("later", free, "free", 10);
	}

	@Test
	void resolverThatFailsLaterShouldGiveTheDefaultPlan() {
		String key = "boom-" + UUID.randomUUID();
		assertAdmitted("later", key, "free", 10);
		assertRefused("later", key, "free", 10);
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

	private CustomerPlans customers() {
		return server().bean(CustomerPlans.class);
	}

	private double count(String plan, String outcome) {
		Counter counter = server().bean(MeterRegistry.class)
			.find(RateLimitMetrics.REQUESTS)
			.tags("policy", "orders", "plan", plan, "outcome", outcome)
			.counter();
		return (counter != null) ? counter.count() : 0;
	}

	private static long capacity(String plan) {
		return plan.equals("pro") ? 100 : 10;
	}

}
