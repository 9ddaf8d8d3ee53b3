package io.github.ratelimit.spring.web;

import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.BiConsumer;

import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.Limit;
import io.github.ratelimit.spring.PolicyDefinition;

import org.springframework.http.HttpHeaders;

/**
 * Turns one decision into the configured rate limit headers: the only place they are built, for every web stack,
 * the filter and {@code @RateLimited} alike. What is constant per policy (its {@code RateLimit-Policy} value, its
 * item name) is built once.
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

	/** Seconds until the binding limit is fully replenished. */
	public static final String X_RATELIMIT_RESET = "X-RateLimit-Reset";

	private final boolean ietf;

	private final boolean legacy;

	private final ConcurrentMap<String, PolicyValues> values = new ConcurrentHashMap<>();

	/**
	 * Creates the header writer of a style.
	 * @param style the header style
	 */
	public RateLimitHeaders(HeaderStyle style) {
		this.ietf = style == HeaderStyle.IETF || style == HeaderStyle.BOTH;
		this.legacy = style == HeaderStyle.LEGACY || style == HeaderStyle.BOTH;
	}

	/**
	 * The headers of a decision.
	 * @param policy the policy decided
	 * @param decision the decision
	 * @return the headers, empty for {@link HeaderStyle#NONE}
	 */
	public HttpHeaders of(PolicyDefinition policy, Decision decision) {
		HttpHeaders headers = new HttpHeaders();
		write(policy, decision, headers::set);
		return headers;
	}

	/**
	 * Writes the headers of a decision, each through a setter such as a response's {@code setHeader}.
	 * @param policy the policy decided
	 * @param decision the decision
	 * @param header called with each header's name and value
	 */
	public void write(PolicyDefinition policy, Decision decision, BiConsumer<String, String> header) {
		if (this.ietf) {
			PolicyValues values = this.values.computeIfAbsent(policy.name(), (name) -> PolicyValues.of(policy));
			header.accept(RATELIMIT_POLICY, values.policy());
			header.accept(RATELIMIT, values.item() + ";r=" + decision.remaining() + ";t=" + decision.resetAfterSeconds());
		}
		if (this.legacy) {
			header.accept(X_RATELIMIT_LIMIT, Long.toString(decision.limit().capacity()));
			header.accept(X_RATELIMIT_REMAINING, Long.toString(decision.remaining()));
			header.accept(X_RATELIMIT_RESET, Long.toString(decision.resetAfterSeconds()));
		}
	}

	/**
	 * A policy name as a structured-field string: quoted, with backslashes and quotes escaped, and characters outside
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
	 * The header values constant for one policy.
	 */
	private record PolicyValues(String item, String policy) {

		static PolicyValues of(PolicyDefinition definition) {
			String item = quoted(definition.name());
			List<Limit> limits = definition.policy().limits();
			StringBuilder policy = new StringBuilder();
			for (Limit limit : limits) {
				if (!policy.isEmpty()) {
					policy.append(", ");
				}
				policy.append(item).append(";q=").append(limit.capacity()).append(";w=").append(limit.periodSeconds());
			}
			return new PolicyValues(item, policy.toString());
		}

	}

}
