package io.github.ratelimit.spring.web;

/**
 * Which rate limit headers limited responses carry.
 */
public enum HeaderStyle {

	/**
	 * {@code RateLimit-Policy} and {@code RateLimit}, the structured fields of draft-ietf-httpapi-ratelimit-headers-10.
	 */
	IETF,

	/**
	 * {@code X-RateLimit-Limit}, {@code X-RateLimit-Remaining} and {@code X-RateLimit-Reset}.
	 */
	LEGACY,

	/**
	 * Both sets.
	 */
	BOTH,

	/**
	 * No rate limit headers ({@code Retry-After} is still sent with refusals).
	 */
	NONE

}
