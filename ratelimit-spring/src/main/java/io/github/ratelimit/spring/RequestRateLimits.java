package io.github.ratelimit.spring;

import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * What rate limiting decided for one web request, shared by the filter and {@code @RateLimited}: the policies the
 * filter charged (so an annotation naming the same policy for the same client does not charge it again), and the
 * admitted outcome whose headers the response shows, the one with the fewest permits left whichever path decided it.
 */
final class RequestRateLimits {

	private static final String ATTRIBUTE = RequestRateLimits.class.getName();

	private final List<Charge> charged = new ArrayList<>(2);

	private @Nullable RateLimitOutcome shown;

	/**
	 * The rate limits of a request, kept with it.
	 * @param request the request
	 * @return its rate limits, created on first use
	 */
	static RequestRateLimits of(RateLimitRequest request) {
		return request.attribute(ATTRIBUTE, RequestRateLimits::new);
	}

	/**
	 * Records that a policy was charged for this request's client.
	 * @param policy the policy
	 * @param key the client's key
	 */
	synchronized void charged(PolicyDefinition policy, String key) {
		if (!isCharged(policy, key)) {
			this.charged.add(new Charge(policy.name(), key));
		}
	}

	/**
	 * Whether a policy was already charged for this request's client.
	 * @param policy the policy
	 * @param key the client's key
	 * @return whether it was
	 */
	synchronized boolean isCharged(PolicyDefinition policy, String key) {
		// a request is charged for a few policies at most: a look through them beats hashing, and allocates nothing
		for (int i = 0; i < this.charged.size(); i++) {
			Charge charge = this.charged.get(i);
			if (charge.policy().equals(policy.name()) && charge.key().equals(key)) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Offers an admitted outcome for the response's headers: it is shown when it binds more than the one shown so far
	 * (fewer permits left). Outcomes that show no headers ({@link RateLimitOutcome#shown()}) are never shown.
	 * @param outcome the outcome
	 * @return whether the response must now show this outcome's headers
	 */
	synchronized boolean show(RateLimitOutcome outcome) {
		if (!bindsMore(outcome, this.shown)) {
			return false;
		}
		this.shown = outcome;
		return true;
	}

	/**
	 * Whether an admitted outcome is to be shown rather than the one shown so far: it shows headers, and leaves fewer
	 * permits than that one.
	 * @param outcome the outcome
	 * @param shown the outcome shown so far, or {@code null}
	 * @return whether to show it
	 */
	static boolean bindsMore(RateLimitOutcome outcome, @Nullable RateLimitOutcome shown) {
		return outcome.shown() && (shown == null || outcome.decision().remaining() < shown.decision().remaining());
	}

	private record Charge(String policy, String key) {
	}

}
