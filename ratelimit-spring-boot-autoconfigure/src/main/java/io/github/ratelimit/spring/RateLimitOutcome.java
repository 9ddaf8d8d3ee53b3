package io.github.ratelimit.spring;

import io.github.ratelimit.core.Decision;

/**
 * What enforcing a policy on one request came to.
 *
 * @param policy the policy enforced
 * @param decision the limiter's decision
 * @param kind how the request was treated
 */
public record RateLimitOutcome(PolicyDefinition policy, Decision decision, Kind kind) {

	/**
	 * Whether the request must be refused.
	 * @return whether it is refused
	 */
	public boolean refused() {
		return this.kind == Kind.DENIED;
	}

	/**
	 * How a request was treated, named as in metrics.
	 */
	public enum Kind {

		/** Admitted by the limiter. */
		ALLOWED("allowed"),

		/** Refused by the limiter. */
		DENIED("denied"),

		/** Refused by the limiter of a shadow policy, and let through. */
		SHADOW_DENIED("shadow-denied");

		private final String tag;

		Kind(String tag) {
			this.tag = tag;
		}

		/**
		 * The name of this outcome in metrics and the actuator endpoint.
		 * @return the tag value
		 */
		public String tag() {
			return this.tag;
		}

	}

}
