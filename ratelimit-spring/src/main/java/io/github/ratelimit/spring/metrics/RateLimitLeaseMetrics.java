package io.github.ratelimit.spring.metrics;

import java.util.function.ToDoubleFunction;

import io.github.ratelimit.spring.PolicyLeases;
import io.github.ratelimit.spring.PolicyLeases.PolicyLease;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.jspecify.annotations.Nullable;

/**
 * Meters of leased policies, tagged {@code policy}, read from their lease statistics when the registry is read (no
 * cost on the decision path): counters {@value #RENEWALS}, {@value #PERMITS} (tagged {@code state} {@code leased},
 * {@code returned} or {@code expired}) and {@value #HITS}, gauges {@value #HELD} and {@value #KEYS}. A policy
 * leased later (by a configuration refresh) gets its meters then.
 */
public class RateLimitLeaseMetrics {

	/** The counter of lease calls to the backend (renewals, granted or not), by policy. */
	public static final String RENEWALS = "ratelimit.lease.renewals";

	/** The counter of permits leased, returned to the backend, or expired unused, by policy and state. */
	public static final String PERMITS = "ratelimit.lease.permits";

	/** The counter of requests decided from a lease in hand, without a backend call, by policy. */
	public static final String HITS = "ratelimit.lease.hits";

	/** The gauge of unused permits in the leases in hand, by policy. */
	public static final String HELD = "ratelimit.lease.held";

	/** The gauge of clients (keys) with a lease in hand, by policy. */
	public static final String KEYS = "ratelimit.lease.keys";

	/**
	 * Registers the meters of every leased policy, now and as policies are leased.
	 * @param registry the application's meter registry
	 * @param leases the leased policies
	 */
	public RateLimitLeaseMetrics(MeterRegistry registry, PolicyLeases leases) {
		leases.forEachPolicy((lease) -> bind(registry, lease));
	}

	private static void bind(MeterRegistry registry, PolicyLease lease) {
		counter(registry, lease, RENEWALS, "Lease calls made to the backend by a leased rate limit policy, granted or not",
				PolicyLease::renewals, null);
		counter(registry, lease, PERMITS, "Permits a leased rate limit policy took from the backend",
				PolicyLease::permitsLeased, "leased");
		counter(registry, lease, PERMITS, "Unused leased permits given back to the backend", PolicyLease::permitsReturned,
				"returned");
		counter(registry, lease, PERMITS, "Leased permits that expired unused (or could not be given back)",
				PolicyLease::permitsExpired, "expired");
		counter(registry, lease, HITS, "Requests decided from a lease in hand, without a backend call",
				PolicyLease::leaseHits, null);
		Gauge.builder(HELD, lease, PolicyLease::permitsHeld)
			.description("Unused permits in the leases this instance holds")
			.tag("policy", lease.policy())
			.register(registry);
		Gauge.builder(KEYS, lease, PolicyLease::leasesHeld)
			.description("Clients for whom this instance holds a lease")
			.tag("policy", lease.policy())
			.register(registry);
	}

	private static void counter(MeterRegistry registry, PolicyLease lease, String name, String description,
			ToDoubleFunction<PolicyLease> count, @Nullable String state) {
		FunctionCounter.Builder<PolicyLease> builder = FunctionCounter.builder(name, lease, count)
			.description(description)
			.tag("policy", lease.policy());
		if (state != null) {
			builder.tag("state", state);
		}
		builder.register(registry);
	}

}
