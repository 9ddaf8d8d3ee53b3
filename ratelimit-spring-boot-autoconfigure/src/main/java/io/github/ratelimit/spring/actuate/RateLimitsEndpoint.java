package io.github.ratelimit.spring.actuate;

import java.time.Instant;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.Limit;
import io.github.ratelimit.core.lease.LeaseSettings;
import io.github.ratelimit.core.lease.LeaseStats;
import io.github.ratelimit.core.lease.LeasedRateLimiter;
import io.github.ratelimit.core.override.ClientOverride;
import io.github.ratelimit.core.override.ClientOverrides;
import io.github.ratelimit.spring.FailureMode;
import io.github.ratelimit.spring.IpKeys;
import io.github.ratelimit.spring.PolicyDefinition;
import io.github.ratelimit.spring.PolicyLeases;
import io.github.ratelimit.spring.PolicyPlan;
import io.github.ratelimit.spring.PolicyUse;
import io.github.ratelimit.spring.RateLimitCounters;
import io.github.ratelimit.spring.RateLimitEnforcer;
import io.github.ratelimit.spring.RateLimitRegistry;
import io.github.ratelimit.spring.RequestKeyResolvers;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.Selector.Match;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

/**
 * The {@code ratelimits} endpoint: every policy with this instance's counts (and a leased policy's lease settings and
 * statistics), a client's state without consuming
 * anything, and (where access is unrestricted) the reset of a client and operators' per-client overrides, each change
 * of which is logged with who made it.
 * <p>
 * A client counted by its address is named by any of its addresses: under a policy keyed by {@code ip}, and in an
 * {@code ip:<address>} fallback key, the address is turned into its key the way requests' are ({@link IpKeys}), so
 * {@code 2001:db8:1:2::7} names the client {@code 2001:db8:1:2::/64}, whose key no URL path could hold.
 * <p>
 * Under a policy that {@linkplain PolicyDefinition#hashesKeys() hashes its keys} (by default those keyed by a header,
 * a parameter or an expression, which may be secrets), a client is still named by its key as sent, and every answer
 * and log line shows only the key's hashed form ({@link PolicyDefinition#storedKey(String)}), under which its
 * override is kept too.
 */
@Endpoint(id = "ratelimits", defaultAccess = Access.READ_ONLY)
public class RateLimitsEndpoint {

	/** The last segment of the path of a client's override, after its key. */
	public static final String OVERRIDE = "override";

	private static final Log logger = LogFactory.getLog(RateLimitsEndpoint.class);

	private final RateLimitRegistry registry;

	private final RateLimitCounters counters;

	private final RateLimitEnforcer enforcer;

	private final FailureMode failureMode;

	private final IpKeys ipKeys;

	private final ClientOverrides overrides;

	private final boolean remainingPathHoldsPolicy;

	private final PolicyLeases leases;

	/**
	 * Creates the endpoint, naming clients by address with the {@linkplain IpKeys#DEFAULT default prefixes}.
	 * @param registry the policies
	 * @param counters this instance's counts
	 * @param enforcer the enforcer, which resets clients
	 * @param failureMode the global failure mode
	 */
	public RateLimitsEndpoint(RateLimitRegistry registry, RateLimitCounters counters, RateLimitEnforcer enforcer,
			FailureMode failureMode) {
		this(registry, counters, enforcer, failureMode, IpKeys.DEFAULT);
	}

	/**
	 * Creates the endpoint.
	 * @param registry the policies
	 * @param counters this instance's counts
	 * @param enforcer the enforcer, which resets clients
	 * @param failureMode the global failure mode
	 * @param ipKeys how requests' addresses become keys, so that a client is named by its address
	 */
	public RateLimitsEndpoint(RateLimitRegistry registry, RateLimitCounters counters, RateLimitEnforcer enforcer,
			FailureMode failureMode, IpKeys ipKeys) {
		this(registry, counters, enforcer, failureMode, ipKeys, ClientOverrides.none());
	}

	/**
	 * Creates the endpoint.
	 * @param registry the policies
	 * @param counters this instance's counts
	 * @param enforcer the enforcer, which resets clients
	 * @param failureMode the global failure mode
	 * @param ipKeys how requests' addresses become keys, so that a client is named by its address
	 * @param overrides the overrides the enforcer applies, which the endpoint lists, sets and removes
	 */
	public RateLimitsEndpoint(RateLimitRegistry registry, RateLimitCounters counters, RateLimitEnforcer enforcer,
			FailureMode failureMode, IpKeys ipKeys, ClientOverrides overrides) {
		this(registry, counters, enforcer, failureMode, ipKeys, overrides, false);
	}

	/**
	 * Creates the endpoint.
	 * @param registry the policies
	 * @param counters this instance's counts
	 * @param enforcer the enforcer, which resets clients
	 * @param failureMode the global failure mode
	 * @param ipKeys how requests' addresses become keys, so that a client is named by its address
	 * @param overrides the overrides the enforcer applies, which the endpoint lists, sets and removes
	 * @param remainingPathHoldsPolicy whether the web layer passes the policy's segment as the first of the key's
	 * (Spring Boot's WebFlux endpoint mapping does: it extracts the remaining path from the first variable on)
	 */
	public RateLimitsEndpoint(RateLimitRegistry registry, RateLimitCounters counters, RateLimitEnforcer enforcer,
			FailureMode failureMode, IpKeys ipKeys, ClientOverrides overrides, boolean remainingPathHoldsPolicy) {
		this(registry, counters, enforcer, failureMode, ipKeys, overrides, remainingPathHoldsPolicy,
				new PolicyLeases());
	}

	/**
	 * Creates the endpoint.
	 * @param registry the policies
	 * @param counters this instance's counts
	 * @param enforcer the enforcer, which resets clients
	 * @param failureMode the global failure mode
	 * @param ipKeys how requests' addresses become keys, so that a client is named by its address
	 * @param overrides the overrides the enforcer applies, which the endpoint lists, sets and removes
	 * @param remainingPathHoldsPolicy whether the web layer passes the policy's segment as the first of the key's
	 * (Spring Boot's WebFlux endpoint mapping does: it extracts the remaining path from the first variable on)
	 * @param leases the leased policies, whose statistics since start the report of each shows
	 */
	public RateLimitsEndpoint(RateLimitRegistry registry, RateLimitCounters counters, RateLimitEnforcer enforcer,
			FailureMode failureMode, IpKeys ipKeys, ClientOverrides overrides, boolean remainingPathHoldsPolicy,
			PolicyLeases leases) {
		this.leases = leases;
		this.remainingPathHoldsPolicy = remainingPathHoldsPolicy;
		this.registry = registry;
		this.counters = counters;
		this.enforcer = enforcer;
		this.failureMode = failureMode;
		this.ipKeys = ipKeys;
		this.overrides = overrides;
	}

	/**
	 * Every policy, with this instance's counts since start.
	 * @return the report
	 */
	@ReadOperation
	public RateLimitsReport rateLimits() {
		Map<String, PolicyReport> policies = new LinkedHashMap<>();
		for (PolicyDefinition policy : this.registry.policies()) {
			policies.put(policy.name(), report(policy));
		}
		return new RateLimitsReport(this.registry.backend().name(), lowerCase(this.failureMode), policies);
	}

	/**
	 * A client's state under a policy, consuming nothing.
	 * @param policy the policy name
	 * @param key the client's key, or its address where it is counted by address: the rest of the path, so that a key
	 * with slashes (an IPv6 client's {@code 2001:db8:1:2::/64}) can be named
	 * @return the state, or {@code null} (404) for an unknown policy
	 */
	@ReadOperation
	public @Nullable ClientState client(@Selector String policy, @Selector(match = Match.ALL_REMAINING) String... key) {
		String client = String.join("/", keyPath(policy, key));
		return this.registry.find(policy).map((definition) -> state(definition, clientKey(definition, client)))
			.orElse(null);
	}

	/**
	 * One policy's report with every override in force under it.
	 * @param policy the policy name
	 * @return the report, or {@code null} (404) for an unknown policy
	 */
	@ReadOperation
	public @Nullable PolicyOverrides policy(@Selector String policy) {
		return this.registry.find(policy)
			.map((definition) -> new PolicyOverrides(policy, report(definition),
					this.overrides.list(policy).stream().map(OverrideReport::of).toList()))
			.orElse(null);
	}

	/**
	 * Sets (or replaces) a client's override: {@code POST /actuator/ratelimits/{policy}/{key}/override} with
	 * {@code {"limits": "1000/1m", "expiresIn": "1h"}} (several limits separated by commas: Actuator reads a body's
	 * values as text, so a JSON array is refused). Answers 400 naming what is wrong with the request, 404 for
	 * an unknown policy, 409 when the most overrides kept are set already, and 503 when the overrides' store cannot be
	 * reached.
	 * @param policy the policy name
	 * @param path the client's key (as for {@link #client(String, String[])}) followed by {@value #OVERRIDE}
	 * @param limits the client's limits, such as {@code 1000/1m} or {@code 1000/1m,50000/1d}
	 * @param expiresIn how long the override lasts, such as {@code 1h}; {@code null} until removed
	 * @param security who asks
	 * @return the client's state with its override
	 */
	@WriteOperation
	public WebEndpointResponse<Object> setOverride(@Selector String policy,
			@Selector(match = Match.ALL_REMAINING) String[] path, @Nullable List<String> limits,
			@Nullable String expiresIn, SecurityContext security) {
		path = keyPath(policy, path);
		PolicyDefinition definition = this.registry.find(policy).orElse(null);
		if (definition == null) {
			return error(WebEndpointResponse.STATUS_NOT_FOUND, "No rate limit policy '" + policy + "'");
		}
		if (path.length < 2 || !OVERRIDE.equals(path[path.length - 1])) {
			return error(WebEndpointResponse.STATUS_BAD_REQUEST, "Set a client's override at /actuator/ratelimits/"
					+ policy + "/<key>/" + OVERRIDE);
		}
		String client = clientKey(definition, String.join("/", Arrays.copyOf(path, path.length - 1)));
		try {
			OverrideRequest request = OverrideRequest.of(definition, limits, expiresIn);
			ClientOverride set = this.overrides.set(policy, definition.storedKey(client), request.limits(),
					request.expiresIn(), operator(security));
			logger.info("Rate limit override set by " + set.setBy() + ": policy '" + policy + "', key '" + set.key()
					+ "', limits " + set.limits() + ", "
					+ ((set.expiresAt() != null) ? "expires at " + set.expiresAt() + " (in " + request.expiresIn()
							+ ")" : "no expiry"));
			return new WebEndpointResponse<>(state(definition, client));
		}
		catch (IllegalArgumentException ex) {
			return error(WebEndpointResponse.STATUS_BAD_REQUEST, ex.getMessage());
		}
		catch (IllegalStateException ex) {
			return error(409, ex.getMessage());
		}
		catch (RuntimeException ex) {
			return storeFailed(ex);
		}
	}

	/**
	 * Resets a client ({@code DELETE /actuator/ratelimits/{policy}/{key}}), or removes its override
	 * ({@code DELETE /actuator/ratelimits/{policy}/{key}/override}).
	 * @param policy the policy name
	 * @param path the client's key, as for {@link #client(String, String[])}, followed by {@value #OVERRIDE} to remove
	 * the client's override
	 * @param security who asks
	 * @return the client's state afterwards, 404 for an unknown policy, or 503 when the overrides' store cannot be
	 * reached
	 */
	@DeleteOperation
	public WebEndpointResponse<Object> delete(@Selector String policy,
			@Selector(match = Match.ALL_REMAINING) String[] path, SecurityContext security) {
		path = keyPath(policy, path);
		if (path.length < 2 || !OVERRIDE.equals(path[path.length - 1])) {
			ClientState reset = reset(policy, path);
			return (reset != null) ? new WebEndpointResponse<>(reset)
					: error(WebEndpointResponse.STATUS_NOT_FOUND, "No rate limit policy '" + policy + "'");
		}
		PolicyDefinition definition = this.registry.find(policy).orElse(null);
		if (definition == null) {
			return error(WebEndpointResponse.STATUS_NOT_FOUND, "No rate limit policy '" + policy + "'");
		}
		String client = clientKey(definition, String.join("/", Arrays.copyOf(path, path.length - 1)));
		try {
			String stored = definition.storedKey(client);
			ClientOverride removed = this.overrides.remove(policy, stored);
			logger.info("Rate limit override removed by " + operator(security) + ": policy '" + policy + "', key '"
					+ stored + "'" + ((removed != null) ? ", was limits " + removed.limits() : ", had none"));
			return new WebEndpointResponse<>(state(definition, client));
		}
		catch (RuntimeException ex) {
			return storeFailed(ex);
		}
	}

	/**
	 * Forgets a client's state under a policy (under each of its plans, and its override), so its next request starts
	 * from full capacity.
	 * @param policy the policy name
	 * @param key the client's key, or its address where it is counted by address: the rest of the path, as for
	 * {@link #client(String, String[])}
	 * @return the state after the reset, or {@code null} for an unknown policy
	 */
	public @Nullable ClientState reset(String policy, String... key) {
		String path = String.join("/", key);
		return this.registry.find(policy).map((definition) -> {
			String client = clientKey(definition, path);
			this.enforcer.reset(definition, client);
			return state(definition, client);
		}).orElse(null);
	}

	/** The segments of the path that name a client (and the operation on it), after the policy's. */
	private String[] keyPath(String policy, String[] path) {
		boolean policyFirst = this.remainingPathHoldsPolicy && path.length > 0 && path[0].equals(policy);
		return policyFirst ? Arrays.copyOfRange(path, 1, path.length) : path;
	}

	private static String operator(SecurityContext security) {
		return (security.getPrincipal() != null) ? security.getPrincipal().getName() : "anonymous";
	}

	private static WebEndpointResponse<Object> storeFailed(RuntimeException ex) {
		logger.warn("A rate limit override could not be changed: " + ex);
		return error(WebEndpointResponse.STATUS_SERVICE_UNAVAILABLE,
				"The overrides' store could not be reached, nothing was changed: " + ex.getMessage());
	}

	private static WebEndpointResponse<Object> error(int status, @Nullable String message) {
		Map<String, Object> body = new LinkedHashMap<>();
		body.put("status", status);
		body.put("error", (message != null) ? message : "");
		return new WebEndpointResponse<>(body, status);
	}

	/**
	 * The key a client named in a URL is stored under: an address, under a policy keyed by {@code ip} or after the
	 * {@code ip:} of a fallback key, becomes its prefix key; anything else (such as a key already grouped, which
	 * is no address) is used as given.
	 */
	private String clientKey(PolicyDefinition policy, String key) {
		String fallback = RequestKeyResolvers.FALLBACK_PREFIX;
		if (key.startsWith(fallback)) {
			return fallback + this.ipKeys.keyOf(key.substring(fallback.length()));
		}
		return RequestKeyResolvers.isIp(policy.keyStrategy()) ? this.ipKeys.keyOf(key) : key;
	}

	private PolicyReport report(PolicyDefinition policy) {
		RateLimitCounters.Counts counts = this.counters.of(policy.name());
		List<PolicyUse> uses = this.registry.uses(policy.name());
		boolean ownSettings = this.registry.isConfigured(policy.name()) || uses.isEmpty();
		PolicyPlan own = policy.defaultPlan();
		return new PolicyReport(own.policy().algorithm().id(), limits(own),
				ownSettings ? policy.keyStrategy() : distinct(uses, PolicyUse::key), policy.paths(),
				policy.excludePaths(), List.copyOf(policy.methods()),
				ownSettings ? Long.toString(own.cost()) : distinct(uses, PolicyUse::cost),
				lowerCase(policy.failureMode()), policy.shadow(), uses, counts.allowed(), counts.denied(),
				counts.failed(), plans(policy), defaultPlan(policy), this.overrides.list(policy.name()).size(),
				LeaseReport.of(own, this.leases.find(policy.name())), policy.hashesKeys(),
				policy.maxWait().isZero() ? null : policy.maxWait().toString());
	}

	private static Map<String, PlanReport> plans(PolicyDefinition policy) {
		Map<String, PlanReport> plans = new LinkedHashMap<>();
		if (!policy.hasPlans()) {
			return plans;
		}
		policy.plans().stream().sorted(Comparator.comparing(PolicyPlan::scope))
			.forEach((plan) -> plans.put(plan.plan(), new PlanReport(plan.policy().algorithm().id(),
					limits(plan), plan.cost())));
		return plans;
	}

	private static @Nullable String defaultPlan(PolicyDefinition policy) {
		return policy.hasPlans() ? policy.defaultPlan().plan() : null;
	}

	private static List<String> limits(PolicyPlan plan) {
		return plan.policy().limits().stream().map(Limit::toString).toList();
	}

	/** What the annotations of a policy they declare say, each different value once. */
	private static String distinct(List<PolicyUse> uses, Function<PolicyUse, String> value) {
		return uses.stream().map(value).distinct().collect(Collectors.joining(" | "));
	}

	/**
	 * The state of a client as it is decided now: under its plan, or its override; shown under its key as the policy
	 * keeps it.
	 */
	private ClientState state(PolicyDefinition policy, String key) {
		PolicyPlan decided = this.enforcer.planFor(policy, key, null).toCompletableFuture().join();
		String stored = policy.storedKey(key);
		Decision decision = decided.limiter().peek(stored);
		ClientOverride override = this.overrides.find(policy.name(), stored);
		String plan = (override != null) ? policy.planForAsync(key, null).toCompletableFuture().join().plan()
				: decided.plan();
		return new ClientState(policy.name(), stored, decision.limit().toString(), decision.limit().capacity(),
				decision.remaining(), decision.resetAfterSeconds(),
				decision.allowed() ? 0 : decision.retryAfterSeconds(), plan,
				(override != null) ? OverrideReport.of(override) : null);
	}

	private static String lowerCase(FailureMode mode) {
		return mode.name().toLowerCase(Locale.ROOT);
	}

	/**
	 * The endpoint's report.
	 *
	 * @param backend the backend's name
	 * @param failureMode the global failure mode
	 * @param policies every policy by name
	 */
	public record RateLimitsReport(String backend, String failureMode, Map<String, PolicyReport> policies) {
	}

	/**
	 * One policy: its configuration and this instance's counts since start.
	 *
	 * @param algorithm the algorithm
	 * @param limits the limits, such as {@code 5/10s}
	 * @param key the key strategy as configured; for a policy its annotations declare, their key expressions
	 * @param paths the filter's path patterns
	 * @param excludePaths the exempted path patterns
	 * @param methods the filter's HTTP methods, empty for all
	 * @param cost the permits a request costs as configured; for a policy its annotations declare, their cost
	 * expressions
	 * @param failureMode the policy's failure mode
	 * @param shadow whether the policy only records
	 * @param annotations the {@code @RateLimited} methods that apply the policy, each with its key and cost
	 * @param allowed requests let through
	 * @param denied requests refused
	 * @param failed requests decided without the backend because it failed
	 * @param plans the policy's plans by name, empty for a policy without plans (whose limits are its own)
	 * @param defaultPlan the plan of clients the plan strategy names none for, {@code null} without plans
	 * @param overrides the number of clients with an override of the policy
	 * @param lease how the policy leases its permits and what its leases did, {@code null} when it does not lease
	 * @param hashKeys whether clients' keys are kept, logged and shown only in their hashed form
	 * @param maxWait how long a refused request waits for its next permit, such as {@code PT2S} ({@code max-wait}),
	 * {@code null} when it is refused at once (a {@code @RateLimited} method's own {@code maxWait} is not shown)
	 */
	public record PolicyReport(String algorithm, List<String> limits, String key, List<String> paths,
			List<String> excludePaths, List<String> methods, String cost, String failureMode, boolean shadow,
			List<PolicyUse> annotations, long allowed, long denied, long failed, Map<String, PlanReport> plans,
			@Nullable String defaultPlan, int overrides, @Nullable LeaseReport lease, boolean hashKeys,
			@Nullable String maxWait) {
	}

	/**
	 * How a leased policy leases its permits, and what this instance's leases of it did since start (every plan's).
	 *
	 * @param batch the most permits one lease takes (the default plan's, for a policy with plans)
	 * @param adaptive whether the batch adapts to this instance's recent rate of each client's requests
	 * @param maxAge how long a lease's permits may be handed out, such as {@code PT1S}
	 * @param renewals lease calls made to the backend, granted or not
	 * @param permitsLeased permits taken from the backend
	 * @param permitsReturned unused permits given back to the backend
	 * @param permitsExpired permits that expired unused
	 * @param leaseHits requests decided from a lease in hand, without a backend call
	 * @param waitedForRenewal requests that the lease in hand did not cover and that waited for a renewal
	 * @param leasesHeld clients with a lease in hand now
	 * @param permitsHeld unused permits in the leases in hand now
	 */
	public record LeaseReport(long batch, boolean adaptive, String maxAge, long renewals, long permitsLeased,
			long permitsReturned, long permitsExpired, long leaseHits, long waitedForRenewal, long leasesHeld,
			long permitsHeld) {

		static @Nullable LeaseReport of(PolicyPlan plan, @Nullable LeaseStats stats) {
			if (!(plan.limiter() instanceof LeasedRateLimiter leased)) {
				return null;
			}
			LeaseSettings settings = leased.settings();
			LeaseStats totals = (stats != null) ? stats : leased.stats();
			return new LeaseReport(settings.batch(), settings.adaptive(), settings.maxAge().toString(),
					totals.renewals(), totals.permitsLeased(), totals.permitsReturned(), totals.permitsExpired(),
					totals.leaseHits(), totals.waitedForRenewal(), totals.leasesHeld(), totals.permitsHeld());
		}

	}

	/**
	 * One plan of a policy.
	 *
	 * @param algorithm the plan's algorithm
	 * @param limits the plan's limits
	 * @param cost the permits a request of the plan's clients costs
	 */
	public record PlanReport(String algorithm, List<String> limits, long cost) {
	}

	/**
	 * One policy's report with the overrides in force under it.
	 *
	 * @param policy the policy name
	 * @param report the policy's report, as {@link #rateLimits()} gives it
	 * @param overrides every override in force, ordered by key
	 */
	public record PolicyOverrides(String policy, PolicyReport report, List<OverrideReport> overrides) {
	}

	/**
	 * A client's override.
	 *
	 * @param key the client's key as its policy keeps it (its hashed form, where the policy hashes keys)
	 * @param limits the client's limits
	 * @param expiresAt when the override ends (ISO-8601, Redis' clock for the Redis backend), {@code null} for never
	 * @param setBy who set it
	 * @param setAt when it was set
	 */
	public record OverrideReport(String key, List<String> limits, @Nullable String expiresAt, String setBy,
			String setAt) {

		static OverrideReport of(ClientOverride override) {
			Instant expiresAt = override.expiresAt();
			return new OverrideReport(override.key(), override.limits().stream().map(Limit::toString).toList(),
					(expiresAt != null) ? expiresAt.toString() : null, override.setBy(), override.setAt().toString());
		}

	}

	/**
	 * A client's state under a policy, for the limit that binds.
	 *
	 * @param policy the policy name
	 * @param key the client's key as its policy keeps it (its hashed form, where the policy hashes keys)
	 * @param limit the binding limit, such as {@code 5/10s}
	 * @param capacity that limit's capacity
	 * @param remaining the permits left
	 * @param resetSeconds seconds until fully replenished
	 * @param retryAfterSeconds seconds until one more request can succeed, 0 when one can now
	 * @param plan the client's plan, {@code null} for a policy without plans
	 * @param override the client's override in force, {@code null} when it has none
	 */
	public record ClientState(String policy, String key, String limit, long capacity, long remaining,
			long resetSeconds, long retryAfterSeconds, @Nullable String plan, @Nullable OverrideReport override) {
	}

}
