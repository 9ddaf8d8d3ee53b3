package io.github.ratelimit.test;

import io.github.ratelimit.spring.PolicyDefinition;
import io.github.ratelimit.spring.PolicyPlan;
import io.github.ratelimit.spring.RateLimitEnforcer;
import io.github.ratelimit.spring.RateLimitOutcome;

/**
 * A test's decision, waited for: the enforcer decides only asynchronously.
 */
public final class Decisions {

	private Decisions() {
	}

	/**
	 * Enforces a policy without plans (or the default plan of one with plans) on one request and waits for the
	 * outcome.
	 * @param enforcer the enforcer
	 * @param policy the policy
	 * @param key the client's key
	 * @param permits the request's cost
	 * @return the outcome
	 */
	public static RateLimitOutcome enforce(RateLimitEnforcer enforcer, PolicyDefinition policy, String key,
			long permits) {
		return enforce(enforcer, policy, policy.defaultPlan(), key, permits);
	}

	/**
	 * Enforces a plan of a policy on one request and waits for the outcome.
	 * @param enforcer the enforcer
	 * @param policy the policy
	 * @param plan the client's plan of it
	 * @param key the client's key
	 * @param permits the request's cost
	 * @return the outcome
	 */
	public static RateLimitOutcome enforce(RateLimitEnforcer enforcer, PolicyDefinition policy, PolicyPlan plan,
			String key, long permits) {
		return enforcer.enforceAsync(policy, plan, key, permits).toCompletableFuture().join();
	}

}
