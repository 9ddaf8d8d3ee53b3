package io.github.ratelimit.benchmarks;

import java.util.List;
import java.util.Set;

import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.core.Policy;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.redis.RedisRateLimiterBackend;
import io.github.ratelimit.core.resilience.CircuitBreaker;
import io.github.ratelimit.core.resilience.DenyCache;
import io.github.ratelimit.spring.FailureMode;
import io.github.ratelimit.spring.PolicyDefinition;
import io.github.ratelimit.spring.RateLimitEnforcer;
import io.github.ratelimit.spring.RateLimitOutcome;

/**
 * Redis calls per denied request through the enforcer (the path of the filter and {@code @RateLimited}), with the
 * deny cache on and off: clients that exhausted a 1-per-hour limit keep asking.
 */
final class DenyCacheCalls {

	private DenyCacheCalls() {
	}

	static Result measure(OwnRedis server, RedisAdmin redis, boolean cacheOn, int clients, int requestsPerClient) {
		try (OurBackend ours = new OurBackend(server)) {
			RedisRateLimiterBackend backend = ours.backend();
			Policy policy = Policy.of("denied", Algorithm.TOKEN_BUCKET, "1/1h");
			RateLimiter limiter = backend.create(policy);
			PolicyDefinition definition = PolicyDefinition.of(policy, limiter, "ip", (request) -> null, List.of(),
					List.of(), Set.of(), 1, FailureMode.OPEN, false);
			// as the starter ships it: 10,000 clients, each answered from the cache for at most one second
			DenyCache cache = cacheOn ? new DenyCache(DenyCache.DEFAULT_MAXIMUM_CLIENTS, DenyCache.DEFAULT_MAX_AGE) : null;
			RateLimitEnforcer enforcer = new RateLimitEnforcer(List.of(), backend, new CircuitBreaker(), cache, 1);
			redis.flushAll();
			RedisStats before = redis.stats();
			long allowed = 0;
			long denied = 0;
			for (int round = 0; round < requestsPerClient; round++) {
				for (int client = 0; client < clients; client++) {
					RateLimitOutcome outcome = enforcer.enforceAsync(definition, definition.defaultPlan(), "10.1.0." + client, 1)
						.toCompletableFuture()
						.join();
					if (outcome.kind() == RateLimitOutcome.Kind.ALLOWED) {
						allowed++;
					}
					else {
						denied++;
					}
				}
			}
			long calls = redis.stats().since(before, 0).scriptCalls();
			return new Result(cacheOn, allowed, denied, calls, (calls - allowed) / (double) denied);
		}
	}

	/**
	 * Redis calls for denied requests.
	 *
	 * @param cacheOn whether the deny cache was on
	 * @param allowed requests admitted
	 * @param denied requests refused
	 * @param calls EVALSHA calls Redis counted
	 * @param callsPerDenied calls beyond the admitted requests' per refused request
	 */
	record Result(boolean cacheOn, long allowed, long denied, long calls, double callsPerDenied) {

	}

}
