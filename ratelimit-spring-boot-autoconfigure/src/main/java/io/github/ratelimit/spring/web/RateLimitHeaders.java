package io.github.ratelimit.spring.web;

import java.util.stream.Collectors;

import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.Limit;
import io.github.ratelimit.spring.PolicyDefinition;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.http.HttpHeaders;

/**
 * Turns one decision into the configured rate limit headers: the only place they are built, for the filter and for
 * {@code @RateLimited} alike.
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

	private final HeaderStyle style;

	/**
	 * Creates the header writer of a style.
	 * @param style the header style
	 */
	public RateLimitHeaders(HeaderStyle style) {
		this.style = style;
	}

	/**
	 * The headers of a decision.
	 * @param policy the policy decided
	 * @param decision the decision
	 * @return the headers, empty for {@link HeaderStyle#NONE}
	 */
	public HttpHeaders of(PolicyDefinition policy, Decision decision) {
		HttpHeaders headers = new HttpHeaders();
		if (this.style == HeaderStyle.IETF || this.style == HeaderStyle.BOTH) {
			String name = quoted(policy.name());
			headers.set(RATELIMIT_POLICY, policy.policy().limits().stream()
				.map((limit) -> name + ";q=" + limit.capacity() + ";w=" + limit.periodSeconds())
				.collect(Collectors.joining(", ")));
			headers.set(RATELIMIT, name + ";r=" + decision.remaining() + ";t=" + decision.resetAfterSeconds());
		}
		if (this.style == HeaderStyle.LEGACY || this.style == HeaderStyle.BOTH) {
			Limit limit = decision.limit();
			headers.set(X_RATELIMIT_LIMIT, Long.toString(limit.capacity()));
			headers.set(X_RATELIMIT_REMAINING, Long.toString(decision.remaining()));
			headers.set(X_RATELIMIT_RESET, Long.toString(decision.resetAfterSeconds()));
		}
		return headers;
	}

	/**
	 * Writes the headers of a decision to a response that is not yet committed.
	 * @param policy the policy decided
	 * @param decision the decision
	 * @param response the response
	 */
	public void write(PolicyDefinition policy, Decision decision, HttpServletResponse response) {
		copy(of(policy, decision), response);
	}

	static void copy(HttpHeaders headers, HttpServletResponse response) {
		headers.forEach((name, values) -> values.forEach((value) -> response.setHeader(name, value)));
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

}
