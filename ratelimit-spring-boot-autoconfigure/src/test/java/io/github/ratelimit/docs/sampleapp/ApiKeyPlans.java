package io.github.ratelimit.docs.sampleapp;

import io.github.ratelimit.spring.PlanResolver;
import io.github.ratelimit.spring.RateLimitRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.stereotype.Component;

/**
 * The bean {@code apiKeyPlans} that the sample README's configuration names: the sample's own {@code ApiKeyPlans},
 * which the README shows, is not on this module's class path.
 */
@Component
class ApiKeyPlans implements PlanResolver {

	@Override
	public String resolvePlan(String key, @Nullable RateLimitRequest request) {
		return key.startsWith("pro-") ? "pro" : "free";
	}

}
