package io.github.ratelimit.spring.metrics;

import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.ratelimit.core.wait.PermitQueues;
import io.github.ratelimit.spring.PolicyDefinition;
import io.github.ratelimit.spring.PolicyPlan;
import io.github.ratelimit.spring.PolicyLeases;
import io.github.ratelimit.spring.RateLimitOutcome;
import io.github.ratelimit.spring.RateLimitRecorder;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.jspecify.annotations.Nullable;

/**
 * Records outcomes as Micrometer meters: counter {@value #REQUESTS} tagged {@code policy} and {@code outcome}, timer
 * {@value #LATENCY} of backend calls tagged {@code policy}, counter {@value #TIMEOUTS} of backend calls that timed out,
 * tagged {@code policy}, and counter {@value #LATE_REFUSALS} of requests a failure mode admitted that the backend's
 * late answer refused, tagged {@code policy}, {@code plan} and {@code outcome}; for policies that may wait, timer
 * {@value #WAIT} of each request's wait tagged {@code policy} and {@code outcome} ({@code admitted}, {@code refused},
 * {@code gave-up}, {@code cancelled} or {@code failed}), gauge {@value #WAITERS} of requests waiting now and counter
 * {@value #WAIT_ABANDONED} of permits granted to requests that had given up, both tagged {@code policy}; for leased policies, the meters of
 * their leases, read from their statistics when the registry is read (no cost on the decision path): counters
 * {@value #LEASE_RENEWALS}, {@value #LEASE_PERMITS} (tagged {@code state} {@code leased}, {@code returned} or
 * {@code expired}), {@value #LEASE_HITS} and {@value #LEASE_WAITS}, gauges {@value #LEASE_HELD} and {@value #LEASE_KEYS}, all tagged
 * {@code policy}; a policy leased later (by a configuration refresh) gets its meters then. Never tagged by client, so
 * the number of series stays bounded by the number of policies.
 */
public class RateLimitMetrics implements RateLimitRecorder {

	/** The counter of requests, by policy and outcome. */
	public static final String REQUESTS = "ratelimit.requests";

	/** The timer of backend calls, by policy. */
	public static final String LATENCY = "ratelimit.latency";

	/** The counter of backend calls that timed out (and may still have consumed), by policy. */
	public static final String TIMEOUTS = "ratelimit.timeouts";

	/**
	 * The counter of requests a failure mode admitted after their backend call timed out, which the backend's late
	 * answer refused, by policy, plan and outcome.
	 */
	public static final String LATE_REFUSALS = "ratelimit.late.refusals";

	/** The counter of lease calls to the backend (renewals, granted or not), by policy. */
	public static final String LEASE_RENEWALS = "ratelimit.lease.renewals";

	/** The counter of permits leased, returned to the backend, or expired unused, by policy and state. */
	public static final String LEASE_PERMITS = "ratelimit.lease.permits";

	/** The counter of requests decided from a lease in hand, without a backend call, by policy. */
	public static final String LEASE_HITS = "ratelimit.lease.hits";

	/**
	 * The counter of requests that the lease in hand did not cover and that waited for a renewal, by policy: a client
	 * faster than a batch per round trip on this instance (a larger batch lifts it), or a renewal ahead of need that
	 * came too late.
	 */
	public static final String LEASE_WAITS = "ratelimit.lease.waits";

	/** The gauge of unused permits in the leases in hand, by policy. */
	public static final String LEASE_HELD = "ratelimit.lease.held";

	/** The gauge of clients (keys) with a lease in hand, by policy. */
	public static final String LEASE_KEYS = "ratelimit.lease.keys";

	/** The timer of requests of policies that may wait, from their first call to their end, by policy and outcome. */
	public static final String WAIT = "ratelimit.wait";

	/** The gauge of requests waiting for a permit now, by policy. */
	public static final String WAITERS = "ratelimit.waiters";

	/** The counter of permits granted to waiting requests that had given up, and not used, by policy. */
	public static final String WAIT_ABANDONED = "ratelimit.wait.abandoned";

	private final MeterRegistry registry;

	private final ConcurrentMap<String, ConcurrentMap<PermitQueues.Ending, Timer>> waits = new ConcurrentHashMap<>();

	private final ConcurrentMap<String, AtomicInteger> waiters = new ConcurrentHashMap<>();

	private final ConcurrentMap<String, Counter> abandoned = new ConcurrentHashMap<>();

	private final ConcurrentMap<String, ConcurrentMap<RateLimitOutcome.Kind, Counter>> counters = new ConcurrentHashMap<>();

	private final ConcurrentMap<String, Timer> timers = new ConcurrentHashMap<>();

	private final ConcurrentMap<String, Counter> timeouts = new ConcurrentHashMap<>();

	private final ConcurrentMap<String, ConcurrentMap<RateLimitOutcome.Kind, Counter>> lateRefusals =
			new ConcurrentHashMap<>();

	/**
	 * Creates the recorder.
	 * @param registry the application's meter registry
	 */
	public RateLimitMetrics(MeterRegistry registry) {
		this(registry, null);
	}

	/**
	 * Creates the recorder and registers the meters of every leased policy, now and as policies are leased.
	 * @param registry the application's meter registry
	 * @param leases the leased policies, or {@code null} for none
	 */
	public RateLimitMetrics(MeterRegistry registry, @Nullable PolicyLeases leases) {
		this.registry = registry;
		if (leases != null) {
			LeaseMeters.bind(registry, leases);
		}
	}

	@Override
	public void record(RateLimitOutcome outcome, long backendNanos) {
		PolicyPlan plan = outcome.plan();
		String policy = plan.name();
		count(this.counters, outcome, REQUESTS, "Requests decided by a rate limit policy");
		if (backendNanos >= 0) {
			this.timers.computeIfAbsent(policy, this::timer).record(backendNanos, TimeUnit.NANOSECONDS);
		}
	}

	@Override
	public void timedOut(PolicyDefinition policy) {
		this.timeouts.computeIfAbsent(policy.name(), this::timeoutCounter).increment();
	}

	@Override
	public void refusedLate(RateLimitOutcome outcome) {
		count(this.lateRefusals, outcome, LATE_REFUSALS,
				"Requests a failure mode admitted after their backend call timed out, which its late answer refused");
	}

	@Override
	public void waitStarted(PolicyDefinition policy) {
		waiters(policy.name()).incrementAndGet();
	}

	@Override
	public void waitEnded(PolicyDefinition policy, Duration waited, PermitQueues.Ending ending) {
		waiters(policy.name()).decrementAndGet();
		this.waits.computeIfAbsent(policy.name(), (name) -> new ConcurrentHashMap<>())
			.computeIfAbsent(ending, (end) -> Timer.builder(WAIT)
				.description("Time requests of a rate limit policy that may wait spent waiting for their permits")
				.tag("policy", policy.name())
				.tag("outcome", end.name().toLowerCase(Locale.ROOT).replace('_', '-'))
				.register(this.registry))
			.record(waited);
	}

	@Override
	public void waitAbandoned(RateLimitOutcome admission) {
		this.abandoned.computeIfAbsent(admission.policy().name(), (name) -> Counter.builder(WAIT_ABANDONED)
			.description("Permits granted to waiting requests that had given up, which no other waiter could take")
			.tag("policy", name)
			.register(this.registry)).increment();
	}

	private AtomicInteger waiters(String policy) {
		return this.waiters.computeIfAbsent(policy, (name) -> {
			AtomicInteger count = new AtomicInteger();
			Gauge.builder(WAITERS, count, AtomicInteger::get)
				.description("Requests of a rate limit policy waiting for a permit now")
				.tag("policy", name)
				.register(this.registry);
			return count;
		});
	}

	private void count(ConcurrentMap<String, ConcurrentMap<RateLimitOutcome.Kind, Counter>> counters,
			RateLimitOutcome outcome, String name, String description) {
		PolicyPlan plan = outcome.plan();
		counters.computeIfAbsent(plan.scope(), (scope) -> new ConcurrentHashMap<>())
			.computeIfAbsent(outcome.kind(), (kind) -> Counter.builder(name)
				.description(description)
				.tag("policy", plan.name())
				.tag("plan", plan.planTag())
				.tag("outcome", kind.tag())
				.register(this.registry))
			.increment();
	}

	private Counter timeoutCounter(String policy) {
		return Counter.builder(TIMEOUTS)
			.description("Rate limit decisions whose backend call timed out; the call may still have consumed permits")
			.tag("policy", policy)
			.register(this.registry);
	}

	private Timer timer(String policy) {
		return Timer.builder(LATENCY)
			.description("Time a rate limit decision waited for its backend")
			.tag("policy", policy)
			.register(this.registry);
	}

}
