package io.github.ratelimit.spring.web;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.BiConsumer;

import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.Limit;
import io.github.ratelimit.core.Policy;
import io.github.ratelimit.spring.PolicyPlan;
import io.github.ratelimit.spring.RateLimitOutcome;

import org.springframework.http.HttpHeaders;

/**
 * Turns one decision into the configured rate limit headers: the only place they are built, for every web stack,
 * the filter and {@code @RateLimited} alike. {@code RateLimit-Policy} lists one item per limit, named by
 * {@link PolicyPlan#itemNames()}; {@code RateLimit} names the limit that binds, with {@code t} the seconds until it has more
 * permits (draft-10's "additional quota"). What is constant per policy is built once.
 */
public class RateLimitHeaders {

	/** The policy header of draft-ietf-httpapi-ratelimit-headers-10. */
	public static final String RATELIMIT_POLICY = "RateLimit-Policy";

	/** The limit header of draft-ietf-httpapi-ratelimit-headers-10. */
	public static final String RATELIMIT = "RateLimit";

	/** The capacity of the binding limit. */
	public static final String X_RATELIMIT_LIMIT = "X-RateLimit-Limit";

	/** The permits left under the binding limit. */
	public static final String X_RATELIMIT_REMAINING = "X-RateLimit-Remaining";

	/** Seconds until the binding limit is fully replenished (unlike draft-10's {@code t}). */
	public static final String X_RATELIMIT_RESET = "X-RateLimit-Reset";

	private final boolean ietf;

	private final boolean legacy;

	private final ConcurrentMap<Policy, PolicyValues> values = new ConcurrentHashMap<>();

	/**
	 * Creates the header writer of the configured headers ({@code ratelimit.headers}).
	 * @param ietf whether responses carry {@code RateLimit-Policy} and {@code RateLimit}, the structured fields of
	 * draft-ietf-httpapi-ratelimit-headers-10
	 * @param legacy whether responses carry {@code X-RateLimit-Limit}, {@code X-RateLimit-Remaining} and
	 * {@code X-RateLimit-Reset}
	 */
	public RateLimitHeaders(boolean ietf, boolean legacy) {
		this.ietf = ietf;
		this.legacy = legacy;
	}

	/**
	 * The headers of a decision.
	 * @param plan the plan decided
	 * @param decision the decision
	 * @return the headers, empty when neither set is written
	 */
	public HttpHeaders of(PolicyPlan plan, Decision decision) {
		HttpHeaders headers = new HttpHeaders();
		write(plan, decision, headers::set);
		return headers;
	}

	/**
	 * Writes the rate limit headers an outcome shows, if any (see {@link RateLimitOutcome#shown()}): none for a shadow
	 * policy, and none when the backend failed, since the shared limits did not decide (the local fallback's divided
	 * limits are this instance's alone, so its decisions show none either, whichever path enforced the policy).
	 * @param outcome the outcome
	 * @param header called with each header's name and value
	 */
	public void write(RateLimitOutcome outcome, BiConsumer<String, String> header) {
		if (outcome.shown()) {
			write(outcome.plan(), outcome.decision(), header);
		}
	}

	/**
	 * Writes the headers of a decision of the policy's shared limits, each through a setter such as a response's
	 * {@code setHeader}. A request that can never succeed (a cost above a capacity) consumed nothing, so its headers
	 * give the client's state as it is, under the limit its cost exceeds (its {@code Retry-After}, which no wait
	 * would honour, is left out elsewhere).
	 * @param plan the plan decided
	 * @param decision the decision
	 * @param header called with each header's name and value
	 */
	public void write(PolicyPlan plan, Decision decision, BiConsumer<String, String> header) {
		if (this.ietf) {
			PolicyValues values = this.values.get(plan.policy());
			if (values == null) {
				values = this.values.computeIfAbsent(plan.policy(), (limits) -> PolicyValues.of(plan.itemNames()));
			}
			header.accept(RATELIMIT_POLICY, values.policy());
			header.accept(RATELIMIT, values.item(decision.limit()) + ";r=" + decision.remaining() + ";t="
					+ decision.nextPermitAfterSeconds());
		}
		if (this.legacy) {
			header.accept(X_RATELIMIT_LIMIT, Long.toString(decision.limit().capacity()));
			header.accept(X_RATELIMIT_REMAINING, Long.toString(decision.remaining()));
			header.accept(X_RATELIMIT_RESET, Long.toString(decision.resetAfterSeconds()));
		}
	}

	/**
	 * An item name as a structured-field string: quoted, with backslashes and quotes escaped, and characters outside
	 * printable ASCII replaced by '?' (sf-string allows nothing else).
	 */
	private static String quoted(String name) {
		StringBuilder quoted = new StringBuilder(name.length() + 2).append('"');
		for (char c : name.toCharArray()) {
			if (c == '"' || c == '\\') {
				quoted.append('\\').append(c);
			}
			else {
				quoted.append((c >= 0x20 && c <= 0x7e) ? c : '?');
			}
		}
		return quoted.append('"').toString();
	}

	/**
	 * The header values constant for one policy: each limit's quoted item, and the {@code RateLimit-Policy} value.
	 */
	private record PolicyValues(Map<Limit, String> items, String policy) {

		static PolicyValues of(Map<Limit, String> names) {
			Map<Limit, String> items = new LinkedHashMap<>();
			StringBuilder header = new StringBuilder();
			names.forEach((limit, name) -> {
				String item = quoted(name);
				items.put(limit, item);
				if (!header.isEmpty()) {
					header.append(", ");
				}
				header.append(item).append(";q=").append(limit.capacity()).append(";w=").append(limit.periodSeconds());
			});
			return new PolicyValues(Map.copyOf(items), header.toString());
		}

		String item(Limit limit) {
			String item = this.items.get(limit);
			if (item == null) {
				throw new IllegalArgumentException("Limit " + limit + " is not one of " + this.items.keySet());
			}
			return item;
		}

	}

}
