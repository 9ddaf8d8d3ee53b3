package io.github.ratelimit.test;

import java.util.List;

/**
 * The names of every rate limit header a response may carry, in either style.
 */
public final class RateLimitHeaderNames {

	/** Every rate limit header: the {@code ietf} ones, then the {@code legacy} ones. */
	public static final List<String> ALL = List.of("RateLimit-Policy", "RateLimit", "X-RateLimit-Limit",
			"X-RateLimit-Remaining", "X-RateLimit-Reset");

	private RateLimitHeaderNames() {
	}

}
