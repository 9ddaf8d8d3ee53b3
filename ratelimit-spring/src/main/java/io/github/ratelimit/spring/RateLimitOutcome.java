package io.github.ratelimit.spring;

import java.net.URI;

import io.github.ratelimit.core.Decision;
import org.jspecify.annotations.Nullable;

import org.springframework.web.ErrorResponseException;

/**
 * What enforcing a policy on one request came to.
 *
 * @param policy the policy enforced
 * @param plan the plan that decided: the client's plan of the policy (its own limits, for a policy without plans), or
 * its override
 * @param decision the decision: the limiter's, the local fallback's, or (when the backend failed open or closed) a
 * stand-in whose counts mean nothing
 * @param kind how the request was decided
 * @param permits the permits the request asked for (its cost)
 */
public record RateLimitOutcome(PolicyDefinition policy, PolicyPlan plan, Decision decision, Kind kind, long permits) {

	/**
	 * Whether the request must be refused. Shadow policies never refuse.
	 * @return whether it is refused
	 */
	public boolean refused() {
		if (this.policy.shadow()) {
			return false;
		}
		return switch (this.kind) {
			case DENIED, FAILED_CLOSED -> true;
			case FALLBACK -> !this.decision.allowed();
			default -> false;
		};
	}

	/**
	 * Whether the decision describes the policy's shared limits, and so is worth rate limit headers: false when the
	 * backend failed (failed open or closed, or decided by the local fallback, whose limits are divided).
	 * @return whether the shared limiter decided
	 */
	public boolean decided() {
		return !this.kind.failed();
	}

	/**
	 * Whether responses show this outcome's rate limit headers: only when the policy's shared limits decided (see
	 * {@link #decided()}) a policy that is not in shadow mode. The one rule for every path that writes them.
	 * @return whether the outcome's rate limit headers are sent
	 */
	public boolean shown() {
		return !this.policy.shadow() && decided();
	}

	/**
	 * The exception that refuses the request: 503 when the backend failed closed, else 429.
	 * @param instance the request's URI, or {@code null} outside a request
	 * @return the exception
	 */
	public ErrorResponseException refusal(@Nullable URI instance) {
		return (this.kind == Kind.FAILED_CLOSED) ? new RateLimiterUnavailableException(this, instance)
				: new RateLimitExceededException(this, instance);
	}

	/**
	 * How a request was decided, named as in metrics.
	 */
	public enum Kind {

		/** Admitted by the limiter. */
		ALLOWED("allowed"),

		/** Refused by the limiter (or by the deny cache of its recent refusals). */
		DENIED("denied"),

		/** Refused by the limiter of a shadow policy, and let through. */
		SHADOW_DENIED("shadow-denied"),

		/** The backend failed and the policy fails open: let through. */
		FAILED_OPEN("failed-open"),

		/** The backend failed and the policy fails closed: refused with 503. */
		FAILED_CLOSED("failed-closed"),

		/** The backend failed and the in-process fallback limiter decided. */
		FALLBACK("fallback");

		private final String tag;

		Kind(String tag) {
			this.tag = tag;
		}

		/**
		 * The name of this outcome in metrics.
		 * @return the tag value
		 */
		public String tag() {
			return this.tag;
		}

		/**
		 * Whether this outcome was reached without the backend, because it failed.
		 * @return whether the backend failed
		 */
		public boolean failed() {
			return this == FAILED_OPEN || this == FAILED_CLOSED || this == FALLBACK;
		}

	}

}
