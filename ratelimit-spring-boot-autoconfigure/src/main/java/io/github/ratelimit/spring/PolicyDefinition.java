package io.github.ratelimit.spring;

import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletionStage;

import io.github.ratelimit.core.Policy;
import io.github.ratelimit.core.RateLimiter;

import org.springframework.http.HttpMethod;
import org.springframework.http.server.PathContainer;
import org.springframework.web.util.pattern.PathPattern;

/**
 * A policy as an application declares it: the limits and algorithm the limiter decides, plus which requests it
 * applies to, how their client is keyed, what each costs and what happens when the backend cannot answer.
 *
 * @param policy the policy decided by the limiter
 * @param limiter the policy's limiter
 * @param keyStrategy the key strategy as configured, such as {@code ip} or {@code header:X-Api-Key}
 * @param keyResolver the resolver of that strategy
 * @param paths the path patterns the filter applies the policy to; empty for annotation-only policies
 * @param excludePaths path patterns exempted from the policy
 * @param methods the HTTP methods the filter applies the policy to, {@code HEAD} included wherever {@code GET} is
 * (Spring MVC serves {@code HEAD} with the {@code GET} handler); empty for all
 * @param cost the permits each request costs
 * @param failureMode what to decide when the backend cannot answer
 * @param shadow whether the policy only records what it would refuse
 */
public record PolicyDefinition(Policy policy, RateLimiter limiter, String keyStrategy, KeyResolver keyResolver,
		List<PathPattern> paths, List<PathPattern> excludePaths, Set<String> methods, long cost,
		FailureMode failureMode, boolean shadow) {

	/**
	 * The policy's name.
	 * @return the name
	 */
	public String name() {
		return this.policy.name();
	}

	/**
	 * The client key of a request under this policy.
	 * @param request the request
	 * @return the key from the policy's key strategy, or the client's IP address when it finds none
	 */
	public String keyOf(RateLimitRequest request) {
		String key = this.keyResolver.resolve(request);
		return (key != null && !key.isEmpty()) ? key : request.remoteAddress();
	}

	/**
	 * The client key of a request under this policy, for callers that must not block: the same key as
	 * {@link #keyOf(RateLimitRequest)}, from {@link KeyResolver#resolveAsync(RateLimitRequest)}.
	 * @param request the request
	 * @return the key when known
	 */
	public CompletionStage<String> keyOfAsync(RateLimitRequest request) {
		return this.keyResolver.resolveAsync(request)
			.thenApply((key) -> (key != null && !key.isEmpty()) ? key : request.remoteAddress());
	}

	/**
	 * When the web filter applies this policy: after authentication when its key resolver
	 * {@linkplain KeyResolver#requiresAuthentication() requires it}, else before.
	 * @return the phase
	 */
	public FilterPhase filterPhase() {
		return this.keyResolver.requiresAuthentication() ? FilterPhase.AFTER_AUTHENTICATION
				: FilterPhase.BEFORE_AUTHENTICATION;
	}

	/**
	 * Whether the web filter applies this policy to a request.
	 * @param method the request's HTTP method
	 * @param path the request's path within the application
	 * @return whether the policy applies
	 */
	public boolean appliesTo(String method, PathContainer path) {
		if (this.paths.isEmpty() || !appliesTo(method)) {
			return false;
		}
		return matchesAny(this.paths, path) && !matchesAny(this.excludePaths, path);
	}

	private boolean appliesTo(String method) {
		return this.methods.isEmpty() || this.methods.contains(method)
				|| (HttpMethod.HEAD.name().equals(method) && this.methods.contains(HttpMethod.GET.name()));
	}

	private static boolean matchesAny(List<PathPattern> patterns, PathContainer path) {
		for (PathPattern pattern : patterns) {
			if (pattern.matches(path)) {
				return true;
			}
		}
		return false;
	}

}
