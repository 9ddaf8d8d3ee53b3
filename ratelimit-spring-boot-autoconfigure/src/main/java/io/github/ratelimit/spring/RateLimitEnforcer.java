package io.github.ratelimit.spring;

import io.github.ratelimit.core.Decision;

/**
 * Enforces policies: asks a policy's limiter for a decision and says how the request is to be treated. The one
 * path by which both the servlet filter and {@code @RateLimited} reach a limiter.
 */
public class RateLimitEnforcer {

	/**
	 * Enforces a policy on one request.
	 * @param policy the policy
	 * @param key the client's key
	 * @param permits the request's cost
	 * @return the outcome
	 */
	public RateLimitOutcome enforce(PolicyDefinition policy, String key, long permits) {
		Decision decision = policy.limiter().tryAcquire(key, permits);
		RateLimitOutcome.Kind kind = decision.allowed() ? RateLimitOutcome.Kind.ALLOWED
				: policy.shadow() ? RateLimitOutcome.Kind.SHADOW_DENIED : RateLimitOutcome.Kind.DENIED;
		return new RateLimitOutcome(policy, decision, kind);
	}

}
