package io.github.ratelimit.spring.actuate;

import java.util.Locale;

import io.github.ratelimit.spring.FailureMode;
import io.github.ratelimit.spring.RateLimitEnforcer;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * UP while the rate limit backend decides; DOWN, with the backend, the failure mode in force and the error (for a
 * {@link LinkageError}, the library that is not compatible), while it does not. While the circuit breaker is open the
 * answer costs nothing; otherwise the check is the backend's (for Redis, one script call bounded by the decision
 * timeout), which also serves as the breaker's probe, so health turns UP again even with no traffic
 * ({@link RateLimitEnforcer#checkBackend()}).
 */
public class RateLimiterHealthIndicator extends AbstractHealthIndicator {

	private final RateLimitEnforcer enforcer;

	private final String backend;

	private final FailureMode failureMode;

	/**
	 * Creates the indicator.
	 * @param enforcer the enforcer, which checks its backend
	 * @param backend the backend's name
	 * @param failureMode the global failure mode
	 */
	public RateLimiterHealthIndicator(RateLimitEnforcer enforcer, String backend, FailureMode failureMode) {
		super("Rate limiter backend check failed");
		this.enforcer = enforcer;
		this.backend = backend;
		this.failureMode = failureMode;
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		builder.withDetail("backend", this.backend)
			.withDetail("failureMode", this.failureMode.name().toLowerCase(Locale.ROOT));
		String error = this.enforcer.checkBackend();
		if (error != null) {
			builder.down().withDetail("error", error);
		}
		else {
			builder.up();
		}
	}

}
