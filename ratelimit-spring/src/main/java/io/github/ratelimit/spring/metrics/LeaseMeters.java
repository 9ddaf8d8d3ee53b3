package io.github.ratelimit.spring.metrics;

import java.util.function.ToDoubleFunction;

import io.github.ratelimit.spring.PolicyLeases;
import io.github.ratelimit.spring.PolicyLeases.PolicyLease;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.jspecify.annotations.Nullable;

/**
 * The meters of leased policies ({@link RateLimitMetrics}), read from their lease statistics.
 */
final class LeaseMeters {

	private LeaseMeters() {
	}

	/**
	 * Registers the meters of every leased policy, now and as policies are leased.
	 * @param registry the application's meter registry
	 * @param leases the leased policies
	 */
	static void bind(MeterRegistry registry, PolicyLeases leases) {
		leases.forEachPolicy((lease) -> bind(registry, lease));
	}

	private static void bind(MeterRegistry registry, PolicyLease lease) {
		counter(registry, lease, RateLimitMetrics.LEASE_RENEWALS,
				"Lease calls made to the backend by a leased rate limit policy, granted or not", PolicyLease::renewals,
				null);
		counter(registry, lease, RateLimitMetrics.LEASE_PERMITS, "Permits a leased rate limit policy took from the backend",
				PolicyLease::permitsLeased, "leased");
		counter(registry, lease, RateLimitMetrics.LEASE_PERMITS, "Unused leased permits given back to the backend",
				PolicyLease::permitsReturned, "returned");
		counter(registry, lease, RateLimitMetrics.LEASE_PERMITS,
				"Leased permits that expired unused (or could not be given back)", PolicyLease::permitsExpired,
				"expired");
		counter(registry, lease, RateLimitMetrics.LEASE_HITS,
				"Requests decided from a lease in hand, without a backend call", PolicyLease::leaseHits, null);
		counter(registry, lease, RateLimitMetrics.LEASE_WAITS,
				"Requests that the lease in hand did not cover and that waited for a renewal", PolicyLease::waitedForRenewal,
				null);
		Gauge.builder(RateLimitMetrics.LEASE_HELD, lease, PolicyLease::permitsHeld)
			.description("Unused permits in the leases this instance holds")
			.tag("policy", lease.policy())
			.register(registry);
		Gauge.builder(RateLimitMetrics.LEASE_KEYS, lease, PolicyLease::leasesHeld)
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
