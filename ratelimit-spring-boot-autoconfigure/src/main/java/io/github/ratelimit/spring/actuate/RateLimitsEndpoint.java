package io.github.ratelimit.spring.actuate;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.Limit;
import io.github.ratelimit.spring.FailureMode;
import io.github.ratelimit.spring.IpKeys;
import io.github.ratelimit.spring.PolicyDefinition;
import io.github.ratelimit.spring.PolicyUse;
import io.github.ratelimit.spring.RateLimitCounters;
import io.github.ratelimit.spring.RateLimitEnforcer;
import io.github.ratelimit.spring.RateLimitRegistry;
import io.github.ratelimit.spring.RequestKeyResolvers;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.Selector.Match;
import org.springframework.web.util.pattern.PathPattern;

/**
 * The {@code ratelimits} endpoint: every policy with this instance's counts, a client's state without consuming
 * anything, and (where access is unrestricted) the reset of a client.
 * <p>
 * A client counted by its address is named by any of its addresses: under a policy keyed by {@code ip}, and in an
 * {@code ip:<address>} fallback key, the address is turned into its key the way requests' are ({@link IpKeys}), so
 * {@code 2001:db8:1:2::7} names the client {@code 2001:db8:1:2::/64}, whose key no URL path could hold.
 */
@Endpoint(id = "ratelimits", defaultAccess = Access.READ_ONLY)
public class RateLimitsEndpoint {

	private final RateLimitRegistry registry;

	private final RateLimitCounters counters;

	private final RateLimitEnforcer enforcer;

	private final FailureMode failureMode;

	private final IpKeys ipKeys;

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
		this.registry = registry;
		this.counters = counters;
		this.enforcer = enforcer;
		this.failureMode = failureMode;
		this.ipKeys = ipKeys;
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
		String client = String.join("/", key);
		return this.registry.find(policy).map((definition) -> state(definition, clientKey(definition, client)))
			.orElse(null);
	}

	/**
	 * Forgets a client's state under a policy, so its next request starts from full capacity.
	 * @param policy the policy name
	 * @param key the client's key, or its address where it is counted by address: the rest of the path, as for
	 * {@link #client(String, String[])}
	 * @return the state after the reset, or {@code null} (404) for an unknown policy
	 */
	@DeleteOperation
	public @Nullable ClientState reset(@Selector String policy, @Selector(match = Match.ALL_REMAINING) String... key) {
		String path = String.join("/", key);
		return this.registry.find(policy).map((definition) -> {
			String client = clientKey(definition, path);
			this.enforcer.reset(definition, client);
			return state(definition, client);
		}).orElse(null);
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
		return new PolicyReport(policy.policy().algorithm().id(),
				policy.policy().limits().stream().map(Limit::toString).toList(),
				ownSettings ? policy.keyStrategy() : distinct(uses, PolicyUse::key), patterns(policy.paths()),
				patterns(policy.excludePaths()), List.copyOf(policy.methods()),
				ownSettings ? Long.toString(policy.cost()) : distinct(uses, PolicyUse::cost),
				lowerCase(policy.failureMode()), policy.shadow(), uses, counts.allowed(), counts.denied(),
				counts.failed());
	}

	/** What the annotations of a policy they declare say, each different value once. */
	private static String distinct(List<PolicyUse> uses, Function<PolicyUse, String> value) {
		return uses.stream().map(value).distinct().collect(Collectors.joining(" | "));
	}

	private static ClientState state(PolicyDefinition policy, String key) {
		Decision decision = policy.limiter().peek(key);
		return new ClientState(policy.name(), key, decision.limit().toString(), decision.limit().capacity(),
				decision.remaining(), decision.resetAfterSeconds(),
				decision.allowed() ? 0 : decision.retryAfterSeconds());
	}

	private static List<String> patterns(List<PathPattern> patterns) {
		return patterns.stream().map(PathPattern::getPatternString).toList();
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
	 */
	public record PolicyReport(String algorithm, List<String> limits, String key, List<String> paths,
			List<String> excludePaths, List<String> methods, String cost, String failureMode, boolean shadow,
			List<PolicyUse> annotations, long allowed, long denied, long failed) {
	}

	/**
	 * A client's state under a policy, for the limit that binds.
	 *
	 * @param policy the policy name
	 * @param key the client's key
	 * @param limit the binding limit, such as {@code 5/10s}
	 * @param capacity that limit's capacity
	 * @param remaining the permits left
	 * @param resetSeconds seconds until fully replenished
	 * @param retryAfterSeconds seconds until one more request can succeed, 0 when one can now
	 */
	public record ClientState(String policy, String key, String limit, long capacity, long remaining,
			long resetSeconds, long retryAfterSeconds) {
	}

}
