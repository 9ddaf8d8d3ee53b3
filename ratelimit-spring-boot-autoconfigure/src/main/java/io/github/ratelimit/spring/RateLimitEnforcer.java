package io.github.ratelimit.spring;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;

import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.Limit;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.core.memory.InMemoryRateLimiterBackend;
import io.github.ratelimit.core.resilience.CircuitBreaker;
import io.github.ratelimit.core.resilience.DenyCache;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Enforces policies: the one path by which both the servlet filter and {@code @RateLimited} reach a limiter.
 * <p>
 * It asks the deny cache first (a client the backend refused a moment ago is refused again without a call), then
 * the policy's limiter, unless the circuit breaker says the backend has just failed. When the backend fails or times
 * out, the policy's failure mode decides: {@code open} lets the request through (and warns, at most every
 * {@value #WARNING_INTERVAL_SECONDS} s), {@code closed} refuses it with 503, {@code local} asks an in-process limiter
 * whose limits are divided by the number of instances. A backend error never reaches the caller.
 */
public class RateLimitEnforcer {

	static final long WARNING_INTERVAL_SECONDS = 10;

	private static final Log logger = LogFactory.getLog(RateLimitEnforcer.class);

	private final List<RateLimitRecorder> recorders;

	private final CircuitBreaker breaker;

	private final @Nullable DenyCache denyCache;

	private final int fallbackInstances;

	private final InMemoryRateLimiterBackend fallbackBackend;

	private final ConcurrentMap<String, RateLimiter> fallbacks = new ConcurrentHashMap<>();

	private final AtomicLong nextWarning = new AtomicLong(System.nanoTime());

	/**
	 * Creates an enforcer that records nothing, with a one-second circuit breaker, a deny cache and no division of
	 * limits for the local fallback.
	 */
	public RateLimitEnforcer() {
		this(List.of());
	}

	/**
	 * Creates an enforcer with a one-second circuit breaker, a deny cache and no division of limits for the local
	 * fallback.
	 * @param recorders told of every outcome
	 */
	public RateLimitEnforcer(List<RateLimitRecorder> recorders) {
		this(recorders, new CircuitBreaker(Duration.ofSeconds(1)), new DenyCache(10_000, Duration.ofSeconds(1)), 1);
	}

	/**
	 * Creates an enforcer.
	 * @param recorders told of every outcome
	 * @param breaker the circuit breaker of the backend
	 * @param denyCache the cache of recent refusals, or {@code null} to ask the backend every time
	 * @param fallbackInstances the number every limit is divided by for the {@code local} failure mode
	 */
	public RateLimitEnforcer(List<RateLimitRecorder> recorders, CircuitBreaker breaker, @Nullable DenyCache denyCache,
			int fallbackInstances) {
		this(recorders, breaker, denyCache, fallbackInstances, new InMemoryRateLimiterBackend());
	}

	/**
	 * Creates an enforcer.
	 * @param recorders told of every outcome
	 * @param breaker the circuit breaker of the backend
	 * @param denyCache the cache of recent refusals, or {@code null} to ask the backend every time
	 * @param fallbackInstances the number every limit is divided by for the {@code local} failure mode
	 * @param fallbackBackend where the {@code local} failure mode keeps its state (bounded like any in-memory backend)
	 */
	public RateLimitEnforcer(List<RateLimitRecorder> recorders, CircuitBreaker breaker, @Nullable DenyCache denyCache,
			int fallbackInstances, InMemoryRateLimiterBackend fallbackBackend) {
		this.fallbackBackend = fallbackBackend;
		this.recorders = List.copyOf(recorders);
		this.breaker = breaker;
		this.denyCache = denyCache;
		this.fallbackInstances = fallbackInstances;
		if (denyCache != null) {
			// the backend is back, perhaps empty: what it refused before is no guide now
			breaker.whenRecovered(denyCache::clear);
		}
	}

	/**
	 * Enforces a policy on one request.
	 * @param policy the policy
	 * @param key the client's key
	 * @param permits the request's cost
	 * @return the outcome
	 */
	public RateLimitOutcome enforce(PolicyDefinition policy, String key, long permits) {
		if (permits < 1) {
			throw new IllegalArgumentException("Permits must be at least 1, was " + permits);
		}
		Decision cached = (this.denyCache != null) ? this.denyCache.find(policy.name(), key, permits) : null;
		if (cached != null) {
			return record(new RateLimitOutcome(policy, cached, refusedKind(policy), permits), -1);
		}
		if (!this.breaker.tryCall()) {
			return record(fail(policy, key, permits, this.breaker.lastError()), -1);
		}
		long start = System.nanoTime();
		long denyCacheStart = (this.denyCache != null) ? this.denyCache.now() : 0;
		Decision decision;
		try {
			decision = policy.limiter().tryAcquire(key, permits);
		}
		catch (RuntimeException ex) {
			this.breaker.onFailure(ex);
			return record(fail(policy, key, permits, ex), System.nanoTime() - start);
		}
		long backendNanos = System.nanoTime() - start;
		this.breaker.onSuccess();
		if (decision.allowed()) {
			return record(new RateLimitOutcome(policy, decision, RateLimitOutcome.Kind.ALLOWED, permits), backendNanos);
		}
		if (this.denyCache != null) {
			this.denyCache.remember(policy.name(), key, permits, decision, denyCacheStart);
		}
		return record(new RateLimitOutcome(policy, decision, refusedKind(policy), permits), backendNanos);
	}

	/**
	 * Forgets a client's state under a policy, in the backend and in this instance's deny cache.
	 * @param policy the policy
	 * @param key the client's key
	 */
	public void reset(PolicyDefinition policy, String key) {
		policy.limiter().reset(key);
		if (this.denyCache != null) {
			this.denyCache.forget(policy.name(), key);
		}
	}

	/**
	 * The circuit breaker of the backend.
	 * @return the breaker
	 */
	public CircuitBreaker circuitBreaker() {
		return this.breaker;
	}

	private RateLimitOutcome fail(PolicyDefinition policy, String key, long permits, @Nullable Throwable error) {
		Limit limit = policy.policy().limits().get(0);
		return switch (policy.failureMode()) {
			case OPEN -> {
				warn(policy, "letting requests through (failure-mode open)", error);
				yield new RateLimitOutcome(policy,
						new Decision(true, limit, limit.capacity(), Duration.ZERO, Duration.ZERO, Duration.ZERO, true,
								List.of()),
						RateLimitOutcome.Kind.FAILED_OPEN, permits);
			}
			case CLOSED -> {
				warn(policy, "refusing requests with 503 (failure-mode closed)", error);
				yield new RateLimitOutcome(policy,
						new Decision(false, limit, 0, this.breaker.retryAfter(), Duration.ZERO, this.breaker.retryAfter(),
								true, policy.policy().limits()),
						RateLimitOutcome.Kind.FAILED_CLOSED, permits);
			}
			case LOCAL -> {
				warn(policy, "deciding with this instance's limiter, limits divided by " + this.fallbackInstances
						+ " (failure-mode local)", error);
				yield new RateLimitOutcome(policy, fallback(policy).tryAcquire(key, permits),
						RateLimitOutcome.Kind.FALLBACK, permits);
			}
		};
	}

	private RateLimiter fallback(PolicyDefinition policy) {
		return this.fallbacks.computeIfAbsent(policy.name(),
				(name) -> this.fallbackBackend.create(policy.policy().dividedBy(this.fallbackInstances)));
	}

	private void warn(PolicyDefinition policy, String action, @Nullable Throwable error) {
		long next = this.nextWarning.get();
		long now = System.nanoTime();
		if (now - next >= 0 && this.nextWarning.compareAndSet(next, now + WARNING_INTERVAL_SECONDS * 1_000_000_000L)) {
			logger.warn("Rate limit backend unavailable for policy '" + policy.name() + "', " + action + ": "
					+ ((error != null) ? error.getMessage() : "circuit open") + " (logged at most every "
					+ WARNING_INTERVAL_SECONDS + " s)");
		}
	}

	private static RateLimitOutcome.Kind refusedKind(PolicyDefinition policy) {
		return policy.shadow() ? RateLimitOutcome.Kind.SHADOW_DENIED : RateLimitOutcome.Kind.DENIED;
	}

	private RateLimitOutcome record(RateLimitOutcome outcome, long backendNanos) {
		for (RateLimitRecorder recorder : this.recorders) {
			recorder.record(outcome, backendNanos);
		}
		return outcome;
	}

}
