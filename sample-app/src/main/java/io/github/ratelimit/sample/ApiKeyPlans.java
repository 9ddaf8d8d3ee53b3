package io.github.ratelimit.sample;

import io.github.ratelimit.spring.PlanResolver;
import io.github.ratelimit.spring.RateLimitRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.stereotype.Component;

// tag::api-key-plans[]
/**
 * The plan of an {@code /api/orders} client: API keys starting with {@code pro-} are on plan {@code pro}, all others
 * on {@code free} (policy {@code orders}, {@code plan: bean:apiKeyPlans}).
 * <p>
 * A real application would look the key's customer up (and cache the answer, as {@link PlanResolver} explains); the
 * prefix keeps the sample self-contained.
 */
@Component
class ApiKeyPlans implements PlanResolver {

	@Override
	public String resolvePlan(String key, @Nullable RateLimitRequest request) {
		return key.startsWith("pro-") ? "pro" : "free";
	}

}
// end::api-key-plans[]
