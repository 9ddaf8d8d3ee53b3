package io.github.ratelimit.spring;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.jspecify.annotations.Nullable;

/**
 * Picks the plan a client is limited by under a policy with plans: from its key (an API key's customer), the
 * authenticated user, anything the application knows. Declare one as a bean and name it in configuration with
 * {@code plan: bean:<bean name>}.
 * <p>
 * It runs on every decision of the policy, before the backend is asked: a resolver that looks the plan up (a customer
 * table) caches what it finds, for instance in a Caffeine cache with a short {@code expireAfterWrite}, so a plan change
 * applies within that time. Every decision asks {@link #resolvePlanAsync(String, RateLimitRequest)} (which calls
 * {@link #resolvePlan(String, RateLimitRequest)} by default), which a resolver that must look the plan up without
 * blocking an event loop overrides.
 */
@FunctionalInterface
public interface PlanResolver {

	/**
	 * The plan of a client.
	 * @param key the client's key under the policy, as its key strategy resolved it
	 * @param request the web request, or {@code null} when a {@code @RateLimited} method is called outside one
	 * @return the plan's name; {@code null}, or a name the policy does not have, for the policy's default plan
	 */
	@Nullable String resolvePlan(String key, @Nullable RateLimitRequest request);

	/**
	 * The plan of a client, as every decision asks it.
	 * @param key the client's key under the policy
	 * @param request the web request, or {@code null} outside one
	 * @return the plan's name when known: by default, {@link #resolvePlan(String, RateLimitRequest)}'s at once
	 */
	default CompletionStage<@Nullable String> resolvePlanAsync(String key, @Nullable RateLimitRequest request) {
		return CompletableFuture.completedFuture(resolvePlan(key, request));
	}

	/**
	 * Whether this resolver needs the authenticated user, so that the filter applies the policy after authentication.
	 * @return {@code false} unless overridden
	 */
	default boolean requiresAuthentication() {
		return false;
	}

}
