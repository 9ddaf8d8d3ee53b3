package io.github.ratelimit.spring.actuate;

import java.util.Locale;

import io.github.ratelimit.core.RateLimiterBackend;
import io.github.ratelimit.core.resilience.CircuitBreaker;
import io.github.ratelimit.spring.FailureMode;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * UP while the rate limit backend answers; DOWN, with the backend, the failure mode in force and the error, while it
 * does not. While the circuit breaker is open the answer costs nothing; otherwise it is one bounded round trip (a
 * Redis PING), which also serves as the breaker's probe, so health turns UP again even with no traffic.
 */
public class RateLimiterHealthIndicator extends AbstractHealthIndicator {

	private final RateLimiterBackend backend;

	private final CircuitBreaker breaker;

	private final FailureMode failureMode;

	/**
	 * Creates the indicator.
	 * @param backend the backend
	 * @param breaker the backend's circuit breaker
	 * @param failureMode the global failure mode
	 */
	public RateLimiterHealthIndicator(RateLimiterBackend backend, CircuitBreaker breaker, FailureMode failureMode) {
		super("Rate limiter backend check failed");
		this.backend = backend;
		this.breaker = breaker;
		this.failureMode = failureMode;
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		builder.withDetail("backend", this.backend.name())
			.withDetail("failureMode", this.failureMode.name().toLowerCase(Locale.ROOT));
		if (!this.breaker.tryCall()) {
			Throwable error = this.breaker.lastError();
			builder.down().withDetail("error", (error != null) ? describe(error) : "circuit open");
			return;
		}
		try {
			this.backend.check();
		}
		catch (RuntimeException ex) {
			// reported as DOWN, not thrown: a Redis outage would otherwise log a stack trace on every poll
			this.breaker.onFailure(ex);
			builder.down().withDetail("error", describe(ex));
			return;
		}
		this.breaker.onSuccess();
		builder.up();
	}

	private static String describe(Throwable error) {
		return error.getClass().getName() + ": " + error.getMessage();
	}

}
