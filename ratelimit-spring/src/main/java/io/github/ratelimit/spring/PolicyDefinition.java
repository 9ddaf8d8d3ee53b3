package io.github.ratelimit.spring;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.github.ratelimit.core.Limit;
import io.github.ratelimit.core.Policy;
import io.github.ratelimit.core.RateLimiter;
import org.jspecify.annotations.Nullable;


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
 * @param plans the policy's plans, of which a client's is {@linkplain #planForAsync(String, RateLimitRequest) picked} before
 * it is decided; a definition that is one plan has none
 */
public record PolicyDefinition(Policy policy, RateLimiter limiter, String keyStrategy, KeyResolver keyResolver,
		List<String> paths, List<String> excludePaths, Set<String> methods, long cost,
		FailureMode failureMode, boolean shadow, PolicyPlans plans) {

	/** The plan a policy without plans is tagged with in metrics and observations. */
	public static final String NO_PLAN_TAG = "none";

	/**
	 * Creates the definition of a policy without plans.
	 * @param policy the policy decided by the limiter
	 * @param limiter the policy's limiter
	 * @param keyStrategy the key strategy as configured
	 * @param keyResolver the resolver of that strategy
	 * @param paths the path patterns the filter applies the policy to
	 * @param excludePaths path patterns exempted from the policy
	 * @param methods the HTTP methods the filter applies the policy to
	 * @param cost the permits each request costs
	 * @param failureMode what to decide when the backend cannot answer
	 * @param shadow whether the policy only records what it would refuse
	 */
	public PolicyDefinition(Policy policy, RateLimiter limiter, String keyStrategy, KeyResolver keyResolver,
			List<String> paths, List<String> excludePaths, Set<String> methods, long cost,
			FailureMode failureMode, boolean shadow) {
		this(policy, limiter, keyStrategy, keyResolver, paths, excludePaths, methods, cost, failureMode, shadow,
				PolicyPlans.none());
	}

	/**
	 * The policy's name.
	 * @return the name
	 */
	public String name() {
		return this.policy.name();
	}

	/**
	 * The plan this definition decides, or {@code null} for a policy without plans (or the policy itself, before a
	 * client's plan is picked, which then decides as its default plan).
	 * @return the plan's name
	 */
	public @Nullable String plan() {
		return this.policy.plan();
	}

	/**
	 * The plan this definition decides as metrics and observations tag it: its name, or {@value #NO_PLAN_TAG} for
	 * a policy without plans.
	 * @return the tag's value
	 */
	public String planTag() {
		String plan = plan();
		return (plan != null) ? plan : NO_PLAN_TAG;
	}

	/**
	 * What this definition's state and refusals are remembered under in this instance (the deny cache, the local
	 * fallback): the policy's name, and its plan after a '{', which no policy name holds.
	 * @return the scope
	 */
	public String scope() {
		String plan = plan();
		return (plan != null) ? name() + "{" + plan : name();
	}

	/**
	 * The definition that decides a client: its plan's when the policy has plans (from
	 * {@link PlanResolver#resolvePlanAsync(String, RateLimitRequest)}; its default plan when the resolver fails), else
	 * this one.
	 * @param key the client's key
	 * @param request the request, or {@code null} when a {@code @RateLimited} method is called outside one
	 * @return the client's plan, or this definition, when known
	 */
	public CompletionStage<PolicyDefinition> planForAsync(String key, @Nullable RateLimitRequest request) {
		if (this.plans.isEmpty()) {
			return CompletableFuture.completedFuture(this);
		}
		return this.plans.planOfAsync(name(), key, request).thenApply((plan) -> (plan != null) ? plan : this);
	}

	/**
	 * The client key of a request under this policy, from {@link KeyResolver#resolveAsync(RateLimitRequest)}: the
	 * key of the policy's key strategy, or the client's IP address when it finds none.
	 * @param request the request
	 * @return the key when known
	 */
	public CompletionStage<String> keyOfAsync(RateLimitRequest request) {
		return this.keyResolver.resolveAsync(request)
			.thenApply((key) -> (key != null && !key.isEmpty()) ? key : request.remoteAddress());
	}

	/**
	 * The names by which responses refer to the policy's limits: the items of {@code RateLimit-Policy} and
	 * {@code RateLimit}, and the {@code violated-policies} of a problem body; unique within the policy.
	 * @return each limit's item name, in the policy's order of limits
	 */
	public Map<Limit, String> itemNames() {
		return PolicyItems.of(this.policy).byLimit();
	}

	/**
	 * When the web filters apply this policy: after authentication when its key resolver or plan resolver
	 * {@linkplain KeyResolver#requiresAuthentication() requires it}, else before.
	 * @return whether the policy is applied after authentication
	 */
	boolean afterAuthentication() {
		return this.keyResolver.requiresAuthentication() || this.plans.requiresAuthentication();
	}

}
