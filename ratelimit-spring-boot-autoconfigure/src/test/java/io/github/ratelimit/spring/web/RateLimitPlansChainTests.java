package io.github.ratelimit.spring.web;

import java.net.URI;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.github.ratelimit.spring.NeutralRequest;
import io.github.ratelimit.spring.RateLimitChain;
import io.github.ratelimit.spring.RateLimitEnforcer;
import io.github.ratelimit.spring.RateLimitOutcome;
import io.github.ratelimit.spring.RateLimitRegistry;
import io.github.ratelimit.spring.metrics.RateLimitMetrics;
import io.github.ratelimit.spring.web.PlansTestApplication.CustomerPlans;
import io.github.ratelimit.test.TestRedis;
import io.github.ratelimit.test.TestRedisProperties;
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
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.web.ErrorResponseException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Plans, once, through the one chain every adapter hands its requests to, on a real Redis with the deny cache on: a
 * client gets its plan's limits, picked by a {@code PlanResolver} bean or an {@code expr:} strategy, now or later;
 * the headers, the problem body of a refusal and the {@code ratelimit.requests} counters name the plan; a client moved
 * to another plan starts fresh on it (neither its old plan's state nor the deny cache's memory of its refusals follows
 * it); a resolver that fails or names a plan the policy lacks gives the default plan, never an error. That each stack
 * shows this in its responses is {@code RateLimitPlansTests} and {@code RateLimitPlansWebFluxTests}.
 */
@TestInstance(Lifecycle.PER_CLASS)
class RateLimitPlansChainTests {

	private ConfigurableApplicationContext context;

	private RateLimitChain chain;

	private RateLimitRegistry registry;

	private final RateLimitHeaders headers = new RateLimitHeaders(true, false);

	@BeforeAll
	void start() {
		TestRedis redis = TestRedis.get();
		this.context = new SpringApplicationBuilder(PlansTestApplication.class).web(WebApplicationType.NONE)
			.properties(PlansTestApplication.POLICIES)
			.properties("spring.main.banner-mode=off", "spring.data.redis.host=" + redis.host(),
					"spring.data.redis.port=" + redis.port(), "ratelimit.timeout=" + TestRedis.TIMEOUT.toMillis() + "ms",
					"ratelimit.key-prefix=" + TestRedisProperties.uniquePrefix(), "ratelimit.deny-cache.enabled=true")
			.run();
		this.chain = new RateLimitChain(this.context.getBean(RateLimitEnforcer.class));
		this.registry = this.context.getBean(RateLimitRegistry.class);
	}

	@AfterAll
	void stop() {
		this.context.close();
	}

	@ParameterizedTest
	@ValueSource(strings = { "orders", "search" })
	void aClientOnTheFreePlanIsAdmittedTheFreePlansLimit(String policy) {
		String key = "free-" + UUID.randomUUID();
		assertAdmitted(policy, key, "free", 10);
		assertRefused(policy, key, "free", 10);
	}

	@ParameterizedTest
	@ValueSource(strings = { "orders", "search" })
	void aClientOnTheProPlanIsAdmittedTheProPlansLimit(String policy) {
		String key = "pro-" + UUID.randomUUID();
		customers().put(key, "pro");
		assertAdmitted(policy, key, "pro", 100);
		assertRefused(policy, key, "pro", 100);
	}

	@Test
	void requestsAreCountedByPlan() {
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
	void aClientMovedToAnotherPlanStartsFreshOnIt() {
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
	void aResolverThatFailsOrNamesAPlanThePolicyLacksGivesTheDefaultPlan(String prefix) {
		String key = prefix + UUID.randomUUID();
		assertAdmitted("flaky", key, "free", 10);
		assertRefused("flaky", key, "free", 10);
	}

	@Test
	void aResolverThatAnswersLaterPicksThePlan() {
		String pro = "pro-" + UUID.randomUUID();
		assertAdmitted("later", pro, "pro", 100);
		assertRefused("later", pro, "pro", 100);
		String free = "free-" + UUID.randomUUID();
		assertAdmitted("later", free, "free", 10);
		assertRefused("later", free, "free", 10);
	}

	@Test
	void aResolverThatFailsLaterGivesTheDefaultPlan() {
		String key = "boom-" + UUID.randomUUID();
		assertAdmitted("later", key, "free", 10);
		assertRefused("later", key, "free", 10);
	}

	/**
	 * Decides requests that the client's plan admits, each showing the plan's item and the permits left.
	 */
	private void assertAdmitted(String policy, String key, String plan, int requests) {
		String item = "\"" + policy + "-" + plan + "\"";
		long capacity = capacity(plan);
		for (int i = 1; i <= requests; i++) {
			RateLimitChain.Verdict verdict = decide(policy, key);
			assertThat(verdict.admitted()).as("request %d of %s on %s", i, key, plan).isTrue();
			Map<String, String> shown = headers(verdict.shown());
			assertThat(shown).containsEntry("RateLimit-Policy", item + ";q=" + capacity + ";w=3600");
			assertThat(shown.get("RateLimit")).startsWith(item + ";r=" + (capacity - i) + ";");
		}
	}

	/**
	 * Decides a request that the client's plan refuses, and checks that the refusal names the plan.
	 */
	private void assertRefused(String policy, String key, String plan, long capacity) {
		RateLimitChain.Verdict verdict = decide(policy, key);
		RateLimitOutcome refusal = verdict.refusal();
		assertThat(refusal).as("the refusal of %s on %s", key, plan).isNotNull();
		String item = policy + "-" + plan;
		assertThat(headers(refusal)).containsEntry("RateLimit-Policy",
				"\"" + item + "\";q=" + capacity + ";w=3600");
		ErrorResponseException exception = refusal.refusal(URI.create("/" + policy + "/items"));
		assertThat(exception.getStatusCode().value()).isEqualTo(429);
		assertThat(exception.getBody().getProperties()).containsEntry("policy", policy)
			.containsEntry("plan", plan)
			.containsEntry("violated-policies", List.of(item));
	}

	private RateLimitChain.Verdict decide(String policy, String key) {
		NeutralRequest request = NeutralRequest.from("203.0.113.7").header("X-Api-Key", key);
		return this.chain.await(request, List.of(RateLimitChain.Step.of(this.registry.find(policy).orElseThrow())),
				true);
	}

	private Map<String, String> headers(RateLimitOutcome outcome) {
		Map<String, String> headers = new LinkedHashMap<>();
		this.headers.write(outcome.plan(), outcome.decision(), headers::put);
		return headers;
	}

	private CustomerPlans customers() {
		return this.context.getBean(CustomerPlans.class);
	}

	private double count(String plan, String outcome) {
		Counter counter = this.context.getBean(MeterRegistry.class)
			.find(RateLimitMetrics.REQUESTS)
			.tags("policy", "orders", "plan", plan, "outcome", outcome)
			.counter();
		return (counter != null) ? counter.count() : 0;
	}

	private static long capacity(String plan) {
		return plan.equals("pro") ? 100 : 10;
	}

}
