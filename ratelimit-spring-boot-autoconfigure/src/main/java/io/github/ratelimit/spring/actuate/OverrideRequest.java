package io.github.ratelimit.spring.actuate;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.ratelimit.core.Limit;
import io.github.ratelimit.core.Policy;
import io.github.ratelimit.spring.PolicyDefinition;
import io.github.ratelimit.spring.PolicyPlan;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.convert.DurationStyle;

/**
 * An operator's request to override a client's limits, checked against the policy it overrides: limits every plan's
 * algorithm accepts and none below the cost of a request, and an expiry, if any, in the future and at most
 * {@link #LONGEST_EXPIRY} away (a longer one would overflow the store's times, and is no expiry).
 *
 * @param limits the override's limits
 * @param expiresIn how long it lasts, or {@code null} until removed
 */
record OverrideRequest(List<Limit> limits, @Nullable Duration expiresIn) {

	/** The longest an override may be set for: the longest period a limit may have. */
	static final Duration LONGEST_EXPIRY = Duration.ofDays(1000);

	/**
	 * Reads and checks a request.
	 * @param policy the policy overridden
	 * @param limits the limits as sent, such as {@code 1000/1m}, each on its own
	 * @param expiresIn the expiry as sent, a duration such as {@code 1h} or {@code PT1H}, or {@code null}
	 * @return the request
	 * @throws IllegalArgumentException naming what is wrong
	 */
	static OverrideRequest of(PolicyDefinition policy, @Nullable List<String> limits, @Nullable String expiresIn) {
		return new OverrideRequest(limits(policy, limits), expiresIn(expiresIn));
	}

	private static List<Limit> limits(PolicyDefinition policy, @Nullable List<String> texts) {
		if (texts == null || texts.isEmpty()) {
			throw new IllegalArgumentException("'limits' is required: the client's limits, such as \"1000/1m\" (several separated by commas)");
		}
		List<Limit> limits = new ArrayList<>();
		for (Object text : texts) {
			try {
				limits.add(Limit.parse(String.valueOf(text).strip()));
			}
			catch (IllegalArgumentException ex) {
				throw new IllegalArgumentException("'limits' holds '" + text + "', which is not a limit such as "
						+ "\"1000/1m\": " + ex.getMessage(), ex);
			}
		}
		for (PolicyPlan plan : policy.plans()) {
			check(plan, limits);
		}
		return limits;
	}

	private static void check(PolicyPlan plan, List<Limit> limits) {
		String of = (plan.plan() != null) ? "plan '" + plan.plan() + "' of policy '" + plan.name() + "'"
				: "policy '" + plan.name() + "'";
		Policy overridden;
		try {
			overridden = plan.policy().withPlan(PolicyPlan.OVERRIDE, plan.policy().algorithm(), limits);
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException("'limits' do not suit the " + plan.policy().algorithm().id()
					+ " algorithm of " + of + ": " + ex.getMessage(), ex);
		}
		if (plan.cost() > overridden.smallestCapacity()) {
			throw new IllegalArgumentException("'limits' have a capacity of " + overridden.smallestCapacity()
					+ ", below the cost of a request of " + of + " (" + plan.cost()
					+ "), so every request would be refused");
		}
	}

	private static @Nullable Duration expiresIn(@Nullable String text) {
		if (text == null || text.isBlank()) {
			return null;
		}
		Duration expiresIn;
		try {
			expiresIn = DurationStyle.detectAndParse(text.strip());
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException("'expiresIn' is '" + text + "', which is not a duration such as \"1h\"",
					ex);
		}
		if (expiresIn.isNegative() || expiresIn.isZero()) {
			throw new IllegalArgumentException("'expiresIn' must be positive, was '" + text + "'");
		}
		if (expiresIn.compareTo(LONGEST_EXPIRY) > 0) {
			throw new IllegalArgumentException("'expiresIn' must be at most " + LONGEST_EXPIRY.toDays() + "d, was '"
					+ text + "'; leave it out for an override that lasts until it is removed");
		}
		return expiresIn;
	}

}
