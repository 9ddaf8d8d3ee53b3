package io.github.ratelimit.spring.web;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.core.Policy;
import io.github.ratelimit.core.memory.InMemoryRateLimiterBackend;
import io.github.ratelimit.spring.FailureMode;
import io.github.ratelimit.spring.PolicyDefinition;
import io.github.ratelimit.spring.RateLimitChain;
import io.github.ratelimit.spring.RequestKeyResolvers;
import org.junit.jupiter.api.Test;

import org.springframework.http.server.PathContainer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which requests the web filters apply a policy to, once, for both stacks: {@code paths}, {@code exclude-paths},
 * {@code methods} (HEAD counted wherever GET is listed, as both stacks serve it with the GET handler), in
 * configuration order, and what each request costs. What each filter hands over (the method and the path within the
 * application) and that the answer reaches the response are in the filters' own suites
 * ({@code RateLimitFilterMatchingTests}, {@code RateLimitWebFluxMatchingTests}).
 */
class FilterPoliciesTests {

	private final InMemoryRateLimiterBackend backend = new InMemoryRateLimiterBackend();

	private final PolicyDefinition annotationsOnly = policy("annotations-only", List.of(), List.of(), Set.of(), 1);

	private final PolicyDefinition orders = policy("orders", List.of("/orders/**", "/carts/{id}"), List.of(),
			Set.of(), 1);

	private final PolicyDefinition reports = policy("reports", List.of("/reports/**"), List.of("/reports/health"),
			Set.of(), 1);

	private final PolicyDefinition writes = policy("writes", List.of("/writes/**"), List.of(),
			Set.of("POST", "DELETE"), 1);

	private final PolicyDefinition reads = policy("reads", List.of("/reads/**", "/writes/**"), List.of(),
			Set.of("GET"), 1);

	private final PolicyDefinition exports = policy("exports", List.of("/exports"), List.of(), Set.of(), 2);

	private final FilterPolicies policies = FilterPolicies.of(List.of(this.annotationsOnly, this.orders, this.reports,
			this.writes, this.reads, this.exports));

	@Test
	void aPolicyWithoutPathsIsNeverAppliedByTheFilters() {
		assertThat(applied("GET", "/annotations-only")).isEmpty();
		assertThat(FilterPolicies.of(List.of(this.annotationsOnly)).stepsFor("GET", path("/"))).isEmpty();
	}

	@Test
	void aPolicyAppliesToEveryPathMatchingItsPatterns() {
		assertThat(applied("GET", "/orders/1/lines")).containsExactly(this.orders);
		assertThat(applied("GET", "/orders")).containsExactly(this.orders);
		assertThat(applied("GET", "/carts/7")).containsExactly(this.orders);
	}

	@Test
	void aPolicyDoesNotApplyToPathsOutsideItsPatterns() {
		for (String path : new String[] { "/carts/7/items", "/ordersx", "/api/orders/1", "/" }) {
			assertThat(applied("GET", path)).as(path).isEmpty();
		}
	}

	@Test
	void aPolicyDoesNotApplyToItsExcludedPaths() {
		assertThat(applied("GET", "/reports/health")).isEmpty();
		assertThat(applied("GET", "/reports/sales")).containsExactly(this.reports);
	}

	@Test
	void aPolicyWithMethodsAppliesToThoseMethodsOnly() {
		assertThat(applied("POST", "/writes/1")).containsExactly(this.writes);
		assertThat(applied("DELETE", "/writes/1")).containsExactly(this.writes);
		assertThat(applied("PUT", "/writes/1")).isEmpty();
		assertThat(applied("GET", "/writes/1")).containsExactly(this.reads);
	}

	@Test
	void headCountsWhereverGetIsListedAndNowhereElse() {
		assertThat(applied("HEAD", "/reads/1")).containsExactly(this.reads);
		assertThat(applied("HEAD", "/writes/1")).as("writes lists POST and DELETE").containsExactly(this.reads);
		assertThat(applied("POST", "/reads/1")).isEmpty();
	}

	@Test
	void everyPolicyThatAppliesIsDecidedInConfigurationOrder() {
		FilterPolicies overlapping = FilterPolicies.of(List.of(this.writes, this.reads, this.orders));
		assertThat(overlapping.stepsFor("GET", path("/writes/1")).stream().map(RateLimitChain.Step::policy))
			.containsExactly(this.reads);
		FilterPolicies both = FilterPolicies.of(List.of(this.reads, policy("all", List.of("/**"), List.of(), Set.of(),
				1)));
		assertThat(both.stepsFor("GET", path("/reads/1")).stream().map((step) -> step.policy().name()))
			.containsExactly("reads", "all");
	}

	@Test
	void eachRequestCostsItsPlansCost() {
		RateLimitChain.Step step = this.policies.stepsFor("GET", path("/exports")).get(0);
		assertThat(step.permits(this.exports.defaultPlan(), null)).isEqualTo(2);
		assertThat(step.permits(this.orders.defaultPlan(), null)).as("the plan's cost, not the policy's").isEqualTo(1);
	}

	@Test
	void aNewSetOfPoliciesAppliesFromTheNextRequest() {
		AtomicReference<List<PolicyDefinition>> current = new AtomicReference<>(List.of(this.orders));
		FilterPolicies refreshed = new FilterPolicies(current::get);
		assertThat(refreshed.stepsFor("GET", path("/reports/sales"))).isEmpty();
		current.set(List.of(this.orders, this.reports));
		assertThat(refreshed.stepsFor("GET", path("/reports/sales"))).hasSize(1);
		current.set(List.of());
		assertThat(refreshed.isEmpty()).isTrue();
	}

	private List<PolicyDefinition> applied(String method, String path) {
		List<PolicyDefinition> applied = new ArrayList<>();
		this.policies.stepsFor(method, path(path)).forEach((step) -> applied.add(step.policy()));
		return applied;
	}

	private static PathContainer path(String path) {
		return PathContainer.parsePath(path);
	}

	private PolicyDefinition policy(String name, List<String> paths, List<String> excludePaths, Set<String> methods,
			long cost) {
		Policy policy = Policy.of(name, Algorithm.TOKEN_BUCKET, "5/1h");
		return PolicyDefinition.of(policy, this.backend.create(policy), "ip", RequestKeyResolvers.ip(), paths,
				excludePaths, methods, cost, FailureMode.OPEN, false);
	}

}
