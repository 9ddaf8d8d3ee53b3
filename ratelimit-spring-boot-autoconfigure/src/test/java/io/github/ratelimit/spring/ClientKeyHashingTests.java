package io.github.ratelimit.spring;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.core.Limit;
import io.github.ratelimit.core.Policy;
import io.github.ratelimit.core.StorageKeys;
import io.github.ratelimit.core.memory.InMemoryRateLimiterBackend;
import io.github.ratelimit.core.override.InMemoryClientOverrides;
import io.github.ratelimit.core.resilience.CircuitBreaker;
import io.github.ratelimit.core.resilience.DenyCache;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static io.github.ratelimit.test.Decisions.enforce;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Clients' keys that may be secrets are kept only in their hashed form: by default those of {@code header:},
 * {@code param:} and {@code expr:} policies, unless a policy opts out (or in); and everything the enforcer keeps of a
 * client (its state, its override, a remembered refusal, its reset) agrees on that form, while a plan resolver is
 * given the key as found.
 */
class ClientKeyHashingTests {

	private static final String SECRET = "sk-live-5cTz81QeV0";

	private static final Policy POLICY = Policy.of("orders", Algorithm.TOKEN_BUCKET, "3/1h");

	private final InMemoryRateLimiterBackend backend = new InMemoryRateLimiterBackend();

	@ParameterizedTest
	@ValueSource(strings = { "header:X-Api-Key", "param:key", "expr:getHeader('X-Api-Key')", " header:Authorization" })
	void keysThatMayBeSecretsAreHashedByDefault(String strategy) {
		PolicyDefinition policy = definition(strategy);
		assertThat(policy.hashesKeys()).isTrue();
		assertThat(policy.storedKey(SECRET)).isEqualTo(StorageKeys.hashed(SECRET)).doesNotContain(SECRET);
		assertThat(policy.storedKey("ip:203.0.113.7")).as("an address, when the strategy finds no key")
			.isEqualTo("ip:203.0.113.7");
		assertThat(policy.storedKey("~ip:203.0.113.7")).isEqualTo(StorageKeys.hashed("~ip:203.0.113.7"));
	}

	@ParameterizedTest
	@ValueSource(strings = { "ip", "global", "principal", "bean:tenantKeyResolver" })
	void addressesUsersTheGlobalKeyAndBeansKeysStayReadable(String strategy) {
		PolicyDefinition policy = definition(strategy);
		assertThat(policy.hashesKeys()).isFalse();
		assertThat(policy.storedKey("203.0.113.7")).isEqualTo("203.0.113.7");
	}

	@Test
	void aPolicyOptsOutForKeysThatAreNoSecretOrInForAnyKey() {
		PolicyDefinition tenants = definition("header:X-Tenant").withHashedKeys(false);
		assertThat(tenants.hashesKeys()).isFalse();
		assertThat(tenants.storedKey("acme")).isEqualTo("acme");
		assertThat(tenants.keyStrategy()).isEqualTo("header:X-Tenant");
		PolicyDefinition addresses = definition("ip").withHashedKeys(true);
		assertThat(addresses.storedKey("203.0.113.7")).isEqualTo(StorageKeys.hashed("203.0.113.7"));
		assertThat(addresses.toString()).contains("(hashed)");
	}

	@Test
	void stateOverrideRemembedRefusalAndResetOfAClientAgreeOnItsHashedKey() {
		InMemoryClientOverrides overrides = new InMemoryClientOverrides(Clock.systemUTC(), 100);
		RateLimitEnforcer enforcer = new RateLimitEnforcer(List.of(), this.backend, new CircuitBreaker(),
				new DenyCache(100, Duration.ofSeconds(1)), 1);
		enforcer.applyOverrides(overrides, 100);
		PolicyDefinition policy = definition("header:X-Api-Key");
		String stored = policy.storedKey(SECRET);

		assertThat(enforce(enforcer, policy, SECRET, 1).decision().remaining()).isEqualTo(2);
		assertThat(policy.defaultPlan().limiter().peek(stored).remaining()).isEqualTo(2);
		assertThat(policy.defaultPlan().limiter().peek(SECRET).remaining()).isEqualTo(3);

		overrides.set(policy.name(), stored, List.of(Limit.parse("2/1h")), null, "operator");
		PolicyPlan overridden = enforcer.planFor(policy, SECRET, null).toCompletableFuture().join();
		assertThat(overridden.plan()).isEqualTo(PolicyPlan.OVERRIDE);
		assertThat(enforce(enforcer, policy, SECRET, 1).decision().limit().capacity()).isEqualTo(2);
		assertThat(enforce(enforcer, policy, SECRET, 1).decision().allowed()).isTrue();
		assertThat(enforce(enforcer, policy, SECRET, 1).decision().allowed()).isFalse();
		assertThat(enforce(enforcer, policy, SECRET, 1).decision().allowed()).as("remembered refusal").isFalse();

		enforcer.reset(policy, SECRET);
		assertThat(overridden.limiter().peek(stored).remaining()).isEqualTo(2);
		assertThat(policy.defaultPlan().limiter().peek(stored).remaining()).isEqualTo(3);
		assertThat(enforce(enforcer, policy, SECRET, 1).decision().allowed()).as("after the reset").isTrue();
	}

	@Test
	void aPlanResolverIsGivenTheKeyAsFound() {
		List<String> asked = new CopyOnWriteArrayList<>();
		PlanResolver resolver = (key, request) -> {
			asked.add(key);
			return key.startsWith("pro-") ? "pro" : "free";
		};
		Map<String, PolicyPlan> plans = Map.of("free", plan("free", "1/1h"), "pro", plan("pro", "5/1h"));
		PolicyDefinition policy = PolicyDefinition.withPlans("orders", "header:X-Api-Key", (request) -> null,
				List.of(), List.of(), Set.of(), FailureMode.OPEN, false, "bean:plans", resolver, plans, "free");
		RateLimitEnforcer enforcer = new RateLimitEnforcer(this.backend, List.of());
		PolicyPlan pro = enforcer.planFor(policy, "pro-" + SECRET, null).toCompletableFuture().join();
		assertThat(pro.plan()).isEqualTo("pro");
		assertThat(enforce(enforcer, policy, pro, "pro-" + SECRET, 1).decision().remaining()).isEqualTo(4);
		assertThat(pro.limiter().peek(policy.storedKey("pro-" + SECRET)).remaining()).isEqualTo(4);
		assertThat(asked).containsOnly("pro-" + SECRET);
	}

	private PolicyPlan plan(String name, String limit) {
		Policy policy = POLICY.withPlan(name, Algorithm.TOKEN_BUCKET, List.of(Limit.parse(limit)));
		return new PolicyPlan(policy, this.backend.create(policy), 1);
	}

	private PolicyDefinition definition(String strategy) {
		return PolicyDefinition.of(POLICY, this.backend.create(POLICY), strategy, (request) -> null, List.of(),
				List.of(), Set.of(), 1, FailureMode.OPEN, false);
	}

}
