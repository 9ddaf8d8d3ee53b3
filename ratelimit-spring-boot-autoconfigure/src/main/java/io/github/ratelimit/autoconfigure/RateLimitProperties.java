package io.github.ratelimit.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.spring.FailureMode;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration of rate limiting. A {@code ratelimit.*} property that binds to nothing (a typo such as
 * {@code ratelimit.policies.hello.path}) stops start-up rather than being ignored.
 */
@ConfigurationProperties(prefix = "ratelimit", ignoreUnknownFields = false)
public class RateLimitProperties {

	/**
	 * Whether rate limiting is enabled. When false there is no filter and annotations are not enforced.
	 */
	private boolean enabled = true;

	/**
	 * Where rate limit state lives: 'redis' (shared by every instance) or 'in-memory' (this instance only).
	 */
	private Backend backend = Backend.REDIS;

	/**
	 * Namespace of every Redis key.
	 */
	private String keyPrefix = "ratelimit";

	/**
	 * Algorithm of policies that name none.
	 */
	private Algorithm algorithm = Algorithm.TOKEN_BUCKET;

	/**
	 * Rate limit headers of limited responses: 'ietf' (RateLimit-Policy and RateLimit), 'legacy'
	 * (X-RateLimit-Limit, -Remaining, -Reset), 'both' or 'none'.
	 */
	private HeaderStyle headers = HeaderStyle.BOTH;

	/**
	 * Longest time a decision waits for the backend before the failure mode applies, counting the time the
	 * application ran (not a pause of its JVM), plus a grace of 20 ms for a reply that is arriving.
	 */
	private Duration timeout = Duration.ofMillis(100);

	/**
	 * What to decide when the backend cannot answer: 'open' (allow), 'closed' (refuse with 503) or 'local' (an
	 * in-process limiter).
	 */
	private FailureMode failureMode = FailureMode.OPEN;

	private final FallbackProperties fallback = new FallbackProperties();

	private final InMemoryProperties inMemory = new InMemoryProperties();

	private final CircuitBreakerProperties circuitBreaker = new CircuitBreakerProperties();

	private final DenyCacheProperties denyCache = new DenyCacheProperties();

	private final RedisProperties redis = new RedisProperties();

	private final FilterProperties filter = new FilterProperties();

	private final IpProperties ip = new IpProperties();

	private final OverridesProperties overrides = new OverridesProperties();

	private final ObservationsProperties observations = new ObservationsProperties();

	/**
	 * Policies by name.
	 */
	private Map<String, PolicyProperties> policies = new LinkedHashMap<>();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public OverridesProperties getOverrides() {
		return this.overrides;
	}

	public ObservationsProperties getObservations() {
		return this.observations;
	}

	public Backend getBackend() {
		return this.backend;
	}

	public void setBackend(Backend backend) {
		this.backend = backend;
	}

	public String getKeyPrefix() {
		return this.keyPrefix;
	}

	public void setKeyPrefix(String keyPrefix) {
		this.keyPrefix = keyPrefix;
	}

	public Algorithm getAlgorithm() {
		return this.algorithm;
	}

	public void setAlgorithm(Algorithm algorithm) {
		this.algorithm = algorithm;
	}

	public HeaderStyle getHeaders() {
		return this.headers;
	}

	public void setHeaders(HeaderStyle headers) {
		this.headers = headers;
	}

	public Duration getTimeout() {
		return this.timeout;
	}

	public void setTimeout(Duration timeout) {
		this.timeout = timeout;
	}

	public FailureMode getFailureMode() {
		return this.failureMode;
	}

	public void setFailureMode(FailureMode failureMode) {
		this.failureMode = failureMode;
	}

	public FallbackProperties getFallback() {
		return this.fallback;
	}

	public InMemoryProperties getInMemory() {
		return this.inMemory;
	}

	public CircuitBreakerProperties getCircuitBreaker() {
		return this.circuitBreaker;
	}

	public DenyCacheProperties getDenyCache() {
		return this.denyCache;
	}

	public RedisProperties getRedis() {
		return this.redis;
	}

	public FilterProperties getFilter() {
		return this.filter;
	}

	public IpProperties getIp() {
		return this.ip;
	}

	public Map<String, PolicyProperties> getPolicies() {
		return this.policies;
	}

	public void setPolicies(Map<String, PolicyProperties> policies) {
		this.policies = policies;
	}

	/**
	 * Where rate limit state lives.
	 */
	public enum Backend {

		/**
		 * Redis, through the application's RedisConnectionFactory: one limit across every instance.
		 */
		REDIS,

		/**
		 * This process: each instance has its own counters.
		 */
		IN_MEMORY

	}

	/**
	 * The in-process limiter of the 'local' failure mode.
	 */
	public static class FallbackProperties {

		/**
		 * Number of instances sharing the limits: each limit is divided by it while the backend is unavailable.
		 */
		private int instances = 1;

		public int getInstances() {
			return this.instances;
		}

		public void setInstances(int instances) {
			this.instances = instances;
		}

	}

	/**
	 * State kept in this process: by the in-memory backend and by the 'local' failure mode.
	 */
	public static class InMemoryProperties {

		/**
		 * Most clients (over all policies) whose state is kept in memory. Beyond it, the least used client's state is
		 * evicted and that client starts afresh (it may be admitted up to its limits again); the first eviction is
		 * logged as a warning.
		 */
		private long maximumClients = 100_000;

		public long getMaximumClients() {
			return this.maximumClients;
		}

		public void setMaximumClients(long maximumClients) {
			this.maximumClients = maximumClients;
		}

	}

	/**
	 * The circuit breaker that skips the backend while it fails: only failures of the backend itself (connection
	 * failures, timeouts, error replies) count, never an error of one request.
	 */
	public static class CircuitBreakerProperties {

		/**
		 * Failure rate, in percent (1 to 100), of the backend calls within the window at or above which the breaker
		 * opens.
		 */
		private int failureRateThreshold = 50;

		/**
		 * Span of time over which the failure rate is measured (a sliding window of ten time buckets).
		 */
		private Duration window = Duration.ofSeconds(1);

		/**
		 * Fewest backend calls within the window for their failure rate to open the breaker.
		 */
		private int minimumCalls = 10;

		/**
		 * How long the breaker stays open, deciding by the failure mode without the backend, before one call probes
		 * the backend again.
		 */
		private Duration openDuration = Duration.ofSeconds(1);

		public int getFailureRateThreshold() {
			return this.failureRateThreshold;
		}

		public void setFailureRateThreshold(int failureRateThreshold) {
			this.failureRateThreshold = failureRateThreshold;
		}

		public Duration getWindow() {
			return this.window;
		}

		public void setWindow(Duration window) {
			this.window = window;
		}

		public int getMinimumCalls() {
			return this.minimumCalls;
		}

		public void setMinimumCalls(int minimumCalls) {
			this.minimumCalls = minimumCalls;
		}

		public Duration getOpenDuration() {
			return this.openDuration;
		}

		public void setOpenDuration(Duration openDuration) {
			this.openDuration = openDuration;
		}

	}

	/**
	 * The local cache of clients the backend has refused.
	 */
	public static class DenyCacheProperties {

		/**
		 * Whether a client refused by Redis is refused locally, without a Redis call, until its retry time.
		 */
		private boolean enabled = true;

		/**
		 * Most clients (over all policies) the deny cache remembers. Beyond it, the least used entry is evicted:
		 * that client's next request asks Redis again, nothing is admitted that Redis would refuse.
		 */
		private long maximumClients = 10_000;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public long getMaximumClients() {
			return this.maximumClients;
		}

		public void setMaximumClients(long maximumClients) {
			this.maximumClients = maximumClients;
		}

	}

	/**
	 * What the starter changes in the application's Redis client.
	 */
	public static class RedisProperties {

		/**
		 * Longest wait between Lettuce's reconnect attempts (exponential from 10 ms up to it), so that exact limiting
		 * resumes soon after Redis is back. 0 leaves Lettuce's own backoff (up to 30 s) alone.
		 */
		private Duration maxReconnectDelay = Duration.ofSeconds(1);

		public Duration getMaxReconnectDelay() {
			return this.maxReconnectDelay;
		}

		public void setMaxReconnectDelay(Duration maxReconnectDelay) {
			this.maxReconnectDelay = maxReconnectDelay;
		}

	}

	/**
	 * The web filters (servlet or WebFlux) that apply policies with paths: one before Spring Security's filter chain,
	 * one after it.
	 */
	public static class FilterProperties {

		/**
		 * Whether the web filters (servlet or WebFlux) are registered.
		 */
		private boolean enabled = true;

		/**
		 * Order of the filter that applies policies whose key is known before authentication ('ip', 'global',
		 * 'header:', 'param:', 'expr:', and 'bean:' resolvers that do not require authentication); by default just
		 * before Spring Security's filter chain (-100), so requests it refuses are limited too.
		 */
		private int order = -110;

		/**
		 * Order of the filter that applies policies whose key needs the authenticated user ('principal', and 'bean:'
		 * resolvers that require authentication); by default just after Spring Security's filter chain (-100). Must be
		 * greater than 'ratelimit.filter.order'.
		 */
		private int principalOrder = -90;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public int getOrder() {
			return this.order;
		}

		public void setOrder(int order) {
			this.order = order;
		}

		public int getPrincipalOrder() {
			return this.principalOrder;
		}

		public void setPrincipalOrder(int principalOrder) {
			this.principalOrder = principalOrder;
		}

	}

	/**
	 * How the 'ip' key strategy, and the client IP every other strategy falls back to, identify a client by its
	 * address.
	 */
	public static class IpProperties {

		/**
		 * Leading bits of an IPv4 address that identify a client, 1 to 32; 32 keys each address on its own.
		 */
		private int ipv4PrefixLength = 32;

		/**
		 * Leading bits of an IPv6 address that identify a client, 1 to 128; 64 counts a host's whole /64 as one
		 * client, since one host usually holds one.
		 */
		private int ipv6PrefixLength = 64;

		public int getIpv4PrefixLength() {
			return this.ipv4PrefixLength;
		}

		public void setIpv4PrefixLength(int ipv4PrefixLength) {
			this.ipv4PrefixLength = ipv4PrefixLength;
		}

		public int getIpv6PrefixLength() {
			return this.ipv6PrefixLength;
		}

		public void setIpv6PrefixLength(int ipv6PrefixLength) {
			this.ipv6PrefixLength = ipv6PrefixLength;
		}

	}

	/**
	 * One policy.
	 */
	public static class PolicyProperties {

		/**
		 * Limits, all of which must admit a request: "capacity/period" strings such as "100/1m" (units ms, s, m, h,
		 * d), or objects with 'capacity' and 'period'.
		 */
		private List<LimitProperties> limits = new ArrayList<>();

		/**
		 * Algorithm of this policy; defaults to 'ratelimit.algorithm'.
		 */
		private @Nullable Algorithm algorithm;

		/**
		 * Whose requests are counted together: 'ip', 'global', 'principal', 'header:<Name>', 'param:<name>',
		 * 'expr:<SpEL over the request>' or 'bean:<KeyResolver bean name>'. A strategy that finds nothing falls back
		 * to the client IP.
		 */
		private String key = "ip";

		/**
		 * Whether clients' keys are stored (in Redis and the overrides), logged and shown by the endpoint only as a
		 * hash, since they may be secrets. Defaults to true for 'header:', 'param:' and 'expr:' keys and false for
		 * the others; set false for keys that are no secret (a tenant id) to see them as they are.
		 */
		private @Nullable Boolean hashKeys;

		/**
		 * Path patterns (Spring PathPattern syntax) the web filter applies this policy to. A policy without
		 * paths is only applied by @RateLimited.
		 */
		private List<String> paths = new ArrayList<>();

		/**
		 * Path patterns exempted from this policy.
		 */
		private List<String> excludePaths = new ArrayList<>();

		/**
		 * HTTP methods the filter applies this policy to; all when empty.
		 */
		private List<String> methods = new ArrayList<>();

		/**
		 * Permits each request costs.
		 */
		private long cost = 1;

		/**
		 * What to decide when the backend cannot answer; defaults to 'ratelimit.failure-mode'.
		 */
		private @Nullable FailureMode failureMode;

		/**
		 * Whether the policy only records what it would refuse, never refusing (a dark launch).
		 */
		private boolean shadow;

		/**
		 * How long a refused request or call waits for its next permit before it is refused (in its client's line in
		 * this instance, in arrival order: a token bucket or GCRA reserves the permits due within this wait with one
		 * decision and sleeps until they are due; other algorithms sleep until the next permit as the backend computed
		 * it and ask again); 0 refuses at once. Applies wherever the policy does: @RateLimited calls (whose 'maxWait' attribute overrides it), the web
		 * filters and gateway routes (a servlet request holds its thread while it waits; a WebFlux one does not).
		 */
		private Duration maxWait = Duration.ZERO;

		/**
		 * How a client's plan is picked, for a policy with plans: 'bean:<PlanResolver bean name>' or
		 * 'expr:<SpEL over the request, the client's key as #key>'.
		 */
		private @Nullable String plan;

		/**
		 * Plan of clients for whom the plan strategy names none (or a plan this policy does not have).
		 */
		private @Nullable String defaultPlan;

		/**
		 * Plans by name (letters, digits, '-' and '_'), each with its own limits, and optionally its own algorithm and
		 * cost. A policy with plans gives its limits in its plans, not in 'limits'.
		 */
		private Map<String, PlanProperties> plans = new LinkedHashMap<>();

		private final LeaseProperties lease = new LeaseProperties();

		public List<LimitProperties> getLimits() {
			return this.limits;
		}

		public void setLimits(List<LimitProperties> limits) {
			this.limits = limits;
		}

		public @Nullable Algorithm getAlgorithm() {
			return this.algorithm;
		}

		public void setAlgorithm(@Nullable Algorithm algorithm) {
			this.algorithm = algorithm;
		}

		public String getKey() {
			return this.key;
		}

		public void setKey(String key) {
			this.key = key;
		}

		public @Nullable Boolean getHashKeys() {
			return this.hashKeys;
		}

		public void setHashKeys(@Nullable Boolean hashKeys) {
			this.hashKeys = hashKeys;
		}

		public List<String> getPaths() {
			return this.paths;
		}

		public void setPaths(List<String> paths) {
			this.paths = paths;
		}

		public List<String> getExcludePaths() {
			return this.excludePaths;
		}

		public void setExcludePaths(List<String> excludePaths) {
			this.excludePaths = excludePaths;
		}

		public List<String> getMethods() {
			return this.methods;
		}

		public void setMethods(List<String> methods) {
			this.methods = methods;
		}

		public long getCost() {
			return this.cost;
		}

		public void setCost(long cost) {
			this.cost = cost;
		}

		public @Nullable FailureMode getFailureMode() {
			return this.failureMode;
		}

		public void setFailureMode(@Nullable FailureMode failureMode) {
			this.failureMode = failureMode;
		}

		public boolean isShadow() {
			return this.shadow;
		}

		public void setShadow(boolean shadow) {
			this.shadow = shadow;
		}

		public Duration getMaxWait() {
			return this.maxWait;
		}

		public void setMaxWait(Duration maxWait) {
			this.maxWait = maxWait;
		}

		public @Nullable String getPlan() {
			return this.plan;
		}

		public void setPlan(@Nullable String plan) {
			this.plan = plan;
		}

		public @Nullable String getDefaultPlan() {
			return this.defaultPlan;
		}

		public void setDefaultPlan(@Nullable String defaultPlan) {
			this.defaultPlan = defaultPlan;
		}

		public Map<String, PlanProperties> getPlans() {
			return this.plans;
		}

		public void setPlans(Map<String, PlanProperties> plans) {
			this.plans = plans;
		}

		public LeaseProperties getLease() {
			return this.lease;
		}

	}

	/**
	 * Leased permits of a policy: an instance takes a batch of a client's permits from the backend in one call and
	 * decides that client's requests from it locally, never admitting more than the policy's limits.
	 */
	public static class LeaseProperties {

		/**
		 * Whether this instance decides the policy's requests from leases of permits (token-bucket, gcra and
		 * fixed-window only). Applies to every plan of the policy; clients with an override are decided exactly.
		 */
		private boolean enabled;

		/**
		 * Most permits one lease takes, at most the policy's (or each plan's) smallest capacity. Defaults to 1% of
		 * that capacity, at least 1.
		 */
		private @Nullable Long batch;

		/**
		 * Whether a lease takes fewer permits than 'batch' when this instance's own recent rate of requests for the
		 * client would not use them within half the maximum age.
		 */
		private boolean adaptive = true;

		/**
		 * How long a lease's permits may be handed out after they were taken; unused permits then expire (or go back,
		 * for fixed-window). Bounds how far a token bucket's or GCRA's admissions may run ahead of its rate.
		 */
		private Duration maxAge = Duration.ofSeconds(1);

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public @Nullable Long getBatch() {
			return this.batch;
		}

		public void setBatch(@Nullable Long batch) {
			this.batch = batch;
		}

		public boolean isAdaptive() {
			return this.adaptive;
		}

		public void setAdaptive(boolean adaptive) {
			this.adaptive = adaptive;
		}

		public Duration getMaxAge() {
			return this.maxAge;
		}

		public void setMaxAge(Duration maxAge) {
			this.maxAge = maxAge;
		}

	}

	/**
	 * One plan of a policy.
	 */
	public static class PlanProperties {

		/**
		 * Limits of the plan's clients, all of which must admit a request.
		 */
		private List<LimitProperties> limits = new ArrayList<>();

		/**
		 * Algorithm of the plan; defaults to the policy's.
		 */
		private @Nullable Algorithm algorithm;

		/**
		 * Permits each request of the plan's clients costs; defaults to the policy's.
		 */
		private @Nullable Long cost;

		public List<LimitProperties> getLimits() {
			return this.limits;
		}

		public void setLimits(List<LimitProperties> limits) {
			this.limits = limits;
		}

		public @Nullable Algorithm getAlgorithm() {
			return this.algorithm;
		}

		public void setAlgorithm(@Nullable Algorithm algorithm) {
			this.algorithm = algorithm;
		}

		public @Nullable Long getCost() {
			return this.cost;
		}

		public void setCost(@Nullable Long cost) {
			this.cost = cost;
		}

	}

	/**
	 * Per-client overrides, set through the 'ratelimits' Actuator endpoint.
	 */
	public static class OverridesProperties {

		/**
		 * How often each instance checks the backend for changed overrides: the longest a change set on another
		 * instance takes to apply here.
		 */
		private Duration refreshInterval = Duration.ofMillis(500);

		/**
		 * Most overrides kept, across all policies; setting one more is refused.
		 */
		private int maximum = 10_000;

		public Duration getRefreshInterval() {
			return this.refreshInterval;
		}

		public void setRefreshInterval(Duration refreshInterval) {
			this.refreshInterval = refreshInterval;
		}

		public int getMaximum() {
			return this.maximum;
		}

		public void setMaximum(int maximum) {
			this.maximum = maximum;
		}

	}

	/**
	 * Micrometer observations of decisions.
	 */
	public static class ObservationsProperties {

		/**
		 * Whether each decision is a Micrometer Observation, 'ratelimit.decision', on the application's
		 * ObservationRegistry: a span of the request's trace with tracing on, and a timer with Actuator. Off by
		 * default: with Actuator's meter handler it adds about a third to the client CPU of a decision.
		 */
		private boolean enabled;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

	}

	/**
	 * One limit of a policy, written either as a "capacity/period" string or as an object.
	 */
	public static class LimitProperties {

		private @Nullable String text;

		/**
		 * Permits per period.
		 */
		private @Nullable Long capacity;

		/**
		 * Length of the period.
		 */
		private @Nullable Duration period;

		public LimitProperties() {
		}

		/**
		 * Creates a limit from its text form, validated later so that errors name the property.
		 * @param text the limit, such as "100/1m"
		 */
		public LimitProperties(String text) {
			this.text = text;
		}

		public @Nullable String text() {
			return this.text;
		}

		public @Nullable Long getCapacity() {
			return this.capacity;
		}

		public void setCapacity(@Nullable Long capacity) {
			this.capacity = capacity;
		}

		public @Nullable Duration getPeriod() {
			return this.period;
		}

		public void setPeriod(@Nullable Duration period) {
			this.period = period;
		}

		@Override
		public String toString() {
			return (this.text != null) ? this.text : this.capacity + "/" + this.period;
		}

	}

	/**
	 * Which rate limit headers limited responses carry: the type of {@code ratelimit.headers}.
	 */
	public enum HeaderStyle {

		/**
		 * {@code RateLimit-Policy} and {@code RateLimit}, the structured fields of
		 * draft-ietf-httpapi-ratelimit-headers-10.
		 */
		IETF(true, false),

		/**
		 * {@code X-RateLimit-Limit}, {@code X-RateLimit-Remaining} and {@code X-RateLimit-Reset}.
		 */
		LEGACY(false, true),

		/**
		 * Both sets.
		 */
		BOTH(true, true),

		/**
		 * No rate limit headers ({@code Retry-After} is still sent with refusals).
		 */
		NONE(false, false);

		private final boolean ietf;

		private final boolean legacy;

		HeaderStyle(boolean ietf, boolean legacy) {
			this.ietf = ietf;
			this.legacy = legacy;
		}

		/**
		 * Whether responses carry the draft's structured fields.
		 * @return whether they do
		 */
		public boolean ietf() {
			return this.ietf;
		}

		/**
		 * Whether responses carry the {@code X-RateLimit-*} headers.
		 * @return whether they do
		 */
		public boolean legacy() {
			return this.legacy;
		}

	}

}
