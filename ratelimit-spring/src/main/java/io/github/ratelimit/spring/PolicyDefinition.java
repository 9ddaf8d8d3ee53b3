package io.github.ratelimit.spring;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.github.ratelimit.core.Policy;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.core.StorageKeys;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanFactory;

/**
 * A policy as an application declares it: which requests it applies to, how their client is keyed, what happens when
 * the backend cannot answer, and its plans, each what a decision runs on ({@link PolicyPlan}: limits and algorithm, a
 * limiter, a cost). A policy without plans has one, its own limits; a policy with plans picks a client's
 * ({@link #planForAsync}) before the client is decided.
 * <p>
 * A client's key may be a secret (an API key in a header): a policy that {@linkplain #hashesKeys() hashes keys}
 * stores, logs and shows each only in its hashed form ({@link #storedKey(String)}; the address of a client it counts
 * by address, having found no key, stays readable), and every decision, override, remembered refusal, lease and
 * reset of the client is kept under that form; only the plan resolver sees the key as it was found.
 */
public final class PolicyDefinition {

	private final String name;

	private final String keyStrategy;

	private final KeyResolver keyResolver;

	private final List<String> paths;

	private final List<String> excludePaths;

	private final Set<String> methods;

	private final FailureMode failureMode;

	private final boolean shadow;

	private final PolicyPlans plans;

	private final boolean hashesKeys;

	private final Duration maxWait;

	private PolicyDefinition(String name, String keyStrategy, KeyResolver keyResolver, List<String> paths,
			List<String> excludePaths, Set<String> methods, FailureMode failureMode, boolean shadow,
			PolicyPlans plans, boolean hashesKeys, Duration maxWait) {
		this.name = name;
		this.keyStrategy = keyStrategy;
		this.keyResolver = keyResolver;
		this.paths = List.copyOf(paths);
		this.excludePaths = List.copyOf(excludePaths);
		this.methods = Set.copyOf(methods);
		this.failureMode = failureMode;
		this.shadow = shadow;
		this.plans = plans;
		this.hashesKeys = hashesKeys;
		this.maxWait = maxWait;
	}

	/**
	 * A policy without plans: its own limits decide every client.
	 * @param policy the limits and algorithm the limiter decides, under the policy's name
	 * @param limiter the policy's limiter
	 * @param keyStrategy the key strategy as configured, such as {@code ip} or {@code header:X-Api-Key}
	 * @param keyResolver the resolver of that strategy
	 * @param paths the path patterns the web filters apply the policy to; empty for annotation-only policies
	 * @param excludePaths path patterns exempted from the policy
	 * @param methods the HTTP methods the web filters apply the policy to, {@code HEAD} included wherever {@code GET}
	 * is (both stacks serve {@code HEAD} with the {@code GET} handler); empty for all
	 * @param cost the permits each request costs
	 * @param failureMode what to decide when the backend cannot answer
	 * @param shadow whether the policy only records what it would refuse
	 * @return the policy
	 */
	public static PolicyDefinition of(Policy policy, RateLimiter limiter, String keyStrategy, KeyResolver keyResolver,
			List<String> paths, List<String> excludePaths, Set<String> methods, long cost, FailureMode failureMode,
			boolean shadow) {
		return new PolicyDefinition(policy.name(), keyStrategy, keyResolver, paths, excludePaths, methods,
				failureMode, shadow, PolicyPlans.of(new PolicyPlan(policy, limiter, cost)),
				RequestKeyResolvers.mayBeSecret(keyStrategy), Duration.ZERO);
	}

	/**
	 * A policy with plans, of which a resolver picks each client's.
	 * @param name the policy's name
	 * @param keyStrategy the key strategy as configured, such as {@code ip} or {@code header:X-Api-Key}
	 * @param keyResolver the resolver of that strategy
	 * @param paths the path patterns the web filters apply the policy to; empty for annotation-only policies
	 * @param excludePaths path patterns exempted from the policy
	 * @param methods the HTTP methods the web filters apply the policy to; empty for all
	 * @param failureMode what to decide when the backend cannot answer
	 * @param shadow whether the policy only records what it would refuse
	 * @param planStrategy the plan strategy as configured, such as {@code bean:orderPlans}
	 * @param planResolver picks a client's plan: the strategy's resolver ({@link #planResolverOf})
	 * @param plans every plan by name, each decided under this policy's name and its own plan name, in the order
	 * they are listed in
	 * @param defaultPlan the name of the plan of clients the resolver gives none
	 * @return the policy
	 * @throws IllegalArgumentException when the default plan is not one of them
	 */
	public static PolicyDefinition withPlans(String name, String keyStrategy, KeyResolver keyResolver,
			List<String> paths, List<String> excludePaths, Set<String> methods, FailureMode failureMode,
			boolean shadow, String planStrategy, PlanResolver planResolver, Map<String, PolicyPlan> plans,
			String defaultPlan) {
		return new PolicyDefinition(name, keyStrategy, keyResolver, paths, excludePaths, methods, failureMode, shadow,
				PolicyPlans.of(planStrategy, planResolver, plans, defaultPlan),
				RequestKeyResolvers.mayBeSecret(keyStrategy), Duration.ZERO);
	}

	/**
	 * The same policy with its clients' keys hashed or not, whatever its key strategy: by default they are when the
	 * strategy's keys may be secrets ({@code header:}, {@code param:}, {@code expr:}) and not otherwise.
	 * @param hashed whether the keys are stored, logged and shown only in their hashed form
	 * @return the policy
	 */
	public PolicyDefinition withHashedKeys(boolean hashed) {
		return new PolicyDefinition(this.name, this.keyStrategy, this.keyResolver, this.paths, this.excludePaths,
				this.methods, this.failureMode, this.shadow, this.plans, hashed, this.maxWait);
	}

	/**
	 * The same policy with its refused requests waiting for their next permit, up to a maximum wait, instead of
	 * being refused at once ({@code ratelimit.policies.<name>.max-wait}).
	 * @param maxWait the longest a request waits; zero (the default) refuses at once
	 * @return the policy
	 * @throws IllegalArgumentException when the wait is negative
	 */
	public PolicyDefinition withMaxWait(Duration maxWait) {
		if (maxWait.isNegative()) {
			throw new IllegalArgumentException("A wait cannot be negative: " + maxWait);
		}
		return new PolicyDefinition(this.name, this.keyStrategy, this.keyResolver, this.paths, this.excludePaths,
				this.methods, this.failureMode, this.shadow, this.plans, this.hashesKeys, maxWait);
	}

	/**
	 * How long a refused request waits for its next permit before it is refused: zero (the default) refuses at once.
	 * @return the longest wait
	 */
	public Duration maxWait() {
		return this.maxWait;
	}

	/**
	 * The resolver of a configured plan strategy: {@code bean:<PlanResolver bean>}, or {@code expr:<SpEL>} evaluated
	 * like an {@code expr:} key strategy (over the request as root and {@code #request}, read-only, instance methods
	 * allowed) with the client's key as {@code #key}; outside a web request the root and {@code #request} are
	 * {@code null}. An expression that fails on a request gives the default plan (the first failure logged as a
	 * warning).
	 * @param strategy the strategy, such as {@code bean:orderPlans}
	 * @param beanFactory where {@code bean:} resolvers are looked up
	 * @return the resolver
	 * @throws IllegalArgumentException when the strategy is unknown, an unparsable expression, or names no
	 * {@link PlanResolver} bean
	 */
	public static PlanResolver planResolverOf(String strategy, BeanFactory beanFactory) {
		return PlanResolvers.of(strategy, beanFactory);
	}

	/**
	 * The policy's name.
	 * @return the name
	 */
	public String name() {
		return this.name;
	}

	/**
	 * The key strategy as configured.
	 * @return the strategy, such as {@code ip} or {@code header:X-Api-Key}
	 */
	public String keyStrategy() {
		return this.keyStrategy;
	}

	/**
	 * Whether the policy stores, logs and shows its clients' keys only in their hashed form.
	 * @return whether it hashes keys
	 */
	public boolean hashesKeys() {
		return this.hashesKeys;
	}

	/**
	 * A client's key as the policy keeps it: stored in the backend and the overrides, remembered by the deny cache,
	 * logged and shown by the endpoint. For a policy that {@linkplain #hashesKeys() hashes keys}, its hashed form
	 * ({@link StorageKeys#hashed(String)}), except the key of a client counted by its address because the strategy
	 * found no key ({@code ip:<address>}, which no key found can look like: see
	 * {@link RequestKeyResolvers#orIp(KeyResolver, IpKeys)}); else the key as it is.
	 * @param key the client's key, as its key strategy found it (or an operator names it)
	 * @return the key as kept
	 */
	public String storedKey(String key) {
		return (this.hashesKeys && !key.startsWith(RequestKeyResolvers.FALLBACK_PREFIX)) ? StorageKeys.hashed(key)
				: key;
	}

	/**
	 * The resolver of the key strategy.
	 * @return the resolver
	 */
	public KeyResolver keyResolver() {
		return this.keyResolver;
	}

	/**
	 * The path patterns the web filters apply the policy to.
	 * @return the patterns; empty for annotation-only policies
	 */
	public List<String> paths() {
		return this.paths;
	}

	/**
	 * The path patterns exempted from the policy.
	 * @return the patterns
	 */
	public List<String> excludePaths() {
		return this.excludePaths;
	}

	/**
	 * The HTTP methods the web filters apply the policy to.
	 * @return the methods; empty for all
	 */
	public Set<String> methods() {
		return this.methods;
	}

	/**
	 * What to decide when the backend cannot answer.
	 * @return the failure mode
	 */
	public FailureMode failureMode() {
		return this.failureMode;
	}

	/**
	 * Whether the policy only records what it would refuse.
	 * @return whether it is in shadow mode
	 */
	public boolean shadow() {
		return this.shadow;
	}

	/**
	 * Whether clients are decided by plans that a resolver picks.
	 * @return whether the policy has plans
	 */
	public boolean hasPlans() {
		return !this.plans.isSingle();
	}

	/**
	 * The plan strategy as configured.
	 * @return the strategy, such as {@code bean:orderPlans}; empty without plans
	 */
	public String planStrategy() {
		return this.plans.strategy();
	}

	/**
	 * Every plan: for a policy without plans, its own limits.
	 * @return the plans, in the order they were listed in
	 */
	public Collection<PolicyPlan> plans() {
		return this.plans.all();
	}

	/**
	 * The plan of clients the resolver names none for: for a policy without plans, its own limits.
	 * @return the plan
	 */
	public PolicyPlan defaultPlan() {
		return this.plans.defaultPlan();
	}

	/**
	 * The plan that decides a client: the one {@link PlanResolver#resolvePlanAsync(String, RateLimitRequest)} names
	 * (the default plan when it names none, one the policy lacks, or fails); for a policy without plans, its own.
	 * @param key the client's key
	 * @param request the request, or {@code null} when a {@code @RateLimited} method is called outside one
	 * @return the client's plan, when known
	 */
	public CompletionStage<PolicyPlan> planForAsync(String key, @Nullable RateLimitRequest request) {
		return this.plans.planOfAsync(this.name, key, request);
	}

	/**
	 * The client key of a request under this policy, from {@link KeyResolver#resolveAsync(RateLimitRequest)}: the
	 * key of the policy's key strategy, or the client's IP address when it finds none.
	 * @param request the request
	 * @return the key when known
	 */
	public CompletionStage<String> keyOfAsync(RateLimitRequest request) {
		CompletableFuture<@Nullable String> resolved = this.keyResolver.resolveAsync(request).toCompletableFuture();
		if (resolved.isDone() && !resolved.isCompletedExceptionally()) {
			// a key found at once (from the request) is not given a dependent stage of its own
			return CompletableFuture.completedFuture(keyOrAddress(resolved.join(), request));
		}
		return resolved.thenApply((key) -> keyOrAddress(key, request));
	}

	private static String keyOrAddress(@Nullable String key, RateLimitRequest request) {
		return (key != null && !key.isEmpty()) ? key : request.remoteAddress();
	}

	/**
	 * When the web filters apply this policy: after authentication when its key resolver or plan resolver
	 * {@linkplain KeyResolver#requiresAuthentication() requires it}, else before.
	 * @return whether the policy is applied after authentication
	 */
	boolean afterAuthentication() {
		return this.keyResolver.requiresAuthentication() || this.plans.requiresAuthentication();
	}

	@Override
	public String toString() {
		return "PolicyDefinition[" + this.name + ", key " + this.keyStrategy + (this.hashesKeys ? " (hashed)" : "")
				+ ", plans " + plans() + "]";
	}

}
