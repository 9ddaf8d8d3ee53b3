package io.github.ratelimit.spring.actuate;

import java.util.Locale;

import io.github.ratelimit.core.RateLimiterBackend;
import io.github.ratelimit.core.resilience.CircuitBreaker;
import io.github.ratelimit.spring.FailureMode;
import io.github.ratelimit.spring.IncompatibleLibrary;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.core.NestedExceptionUtils;

/**
 * UP while the rate limit backend decides; DOWN, with the backend, the failure mode in force and the error (for a
 * {@link LinkageError}, the library that is not compatible), while it does not. While the circuit breaker is open the answer costs nothing; otherwise it is the backend's
 * {@linkplain RateLimiterBackend#check() check} (for Redis, one script call bounded by the decision timeout), which
 * also serves as the breaker's probe, so health turns UP again even with no traffic.
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
		long ticket = this.breaker.tryCall();
		if (ticket == CircuitBreaker.NOT_PERMITTED) {
			Throwable error = this.breaker.lastError();
			builder.down().withDetail("error", (error != null) ? describe(error) : "circuit open");
			return;
		}
		try {
			this.backend.check();
		}
		catch (RuntimeException | LinkageError ex) {
			// reported as DOWN, not thrown: a Redis outage would otherwise log a stack trace on every poll; a
			// library of the backend's that is not the version it was built against fails every call, as the
			// enforcer counts it
			if (ex instanceof LinkageError || this.backend.isBackendFailure(ex)) {
				this.breaker.onFailure(ticket, ex);
			}
			else {
				this.breaker.onIgnored(ticket);
			}
			builder.down().withDetail("error", describe(ex));
			return;
		}
		catch (Error error) {
			this.breaker.onIgnored(ticket);
			throw error;
		}
		this.breaker.onSuccess(ticket);
		builder.up();
	}

	/**
	 * The error and, when it wraps another (Redis' own error reply, such as {@code OOM command not allowed}), the
	 * most specific cause; for a {@link LinkageError}, the library it shows to be incompatible.
	 */
	private static String describe(Throwable error) {
		if (error instanceof LinkageError incompatible) {
			return IncompatibleLibrary.describe(incompatible);
		}
		String description = error.getClass().getName() + ": " + error.getMessage();
		Throwable cause = NestedExceptionUtils.getMostSpecificCause(error);
		return (cause != error) ? description + " (" + cause.getClass().getSimpleName() + ": " + cause.getMessage() + ")"
				: description;
	}

}
