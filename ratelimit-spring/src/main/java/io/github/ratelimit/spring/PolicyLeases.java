package io.github.ratelimit.spring;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.ToLongFunction;

import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.core.lease.LeaseSettings;
import io.github.ratelimit.core.lease.LeaseStats;
import io.github.ratelimit.core.lease.LeasedRateLimiter;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;

/**
 * The leased limiters of the configured policies: creates them, closes those whose policies a refresh replaced (and
 * every one when the application stops), and totals their statistics by policy across replacements.
 * <p>
 * As a {@link SmartLifecycle} of phase {@link #PHASE}, it closes the leases when the application stops after the web
 * server has stopped taking requests and before the Redis connection factory stops (phase 0), so that a fixed
 * window's unused permits can still be given back.
 */
public class PolicyLeases implements SmartLifecycle, AutoCloseable {

	/** The phase the leases are closed in: after the web server's (graceful) stop, before Spring Data Redis'. */
	public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

	private static final Log logger = LogFactory.getLog(PolicyLeases.class);

	private final ConcurrentMap<String, PolicyLease> byPolicy = new ConcurrentHashMap<>();

	private final List<Consumer<PolicyLease>> listeners = new CopyOnWriteArrayList<>();

	private volatile boolean running;

	/**
	 * Wraps a policy's limiter (or its plan's) in a leased limiter.
	 * @param delegate the limiter of the shared state, of a leasable algorithm
	 * @param settings how to lease
	 * @return the leased limiter, closed by {@link #retainOnly} once no policy uses it, or by {@link #close()}
	 */
	public LeasedRateLimiter lease(RateLimiter delegate, LeaseSettings settings) {
		LeasedRateLimiter leased = new LeasedRateLimiter(delegate, settings);
		String name = delegate.policy().name();
		boolean[] created = new boolean[1];
		PolicyLease lease = this.byPolicy.computeIfAbsent(name, (policy) -> {
			created[0] = true;
			return new PolicyLease(policy);
		});
		lease.add(leased);
		if (created[0]) {
			this.listeners.forEach((listener) -> listener.accept(lease));
		}
		return leased;
	}

	/**
	 * Closes every leased limiter that none of the given policies (nor their plans) uses any more, as after a
	 * configuration refresh replaced them, returning their unused permits where the algorithm takes them back.
	 * @param policies the policies in force
	 */
	public void retainOnly(Collection<PolicyDefinition> policies) {
		Set<RateLimiter> inUse = Collections.newSetFromMap(new IdentityHashMap<>());
		for (PolicyDefinition policy : policies) {
			policy.plans().forEach((plan) -> inUse.add(plan.limiter()));
		}
		this.byPolicy.values().forEach((lease) -> lease.retainOnly(inUse));
	}

	/**
	 * The leasing of one policy.
	 * @param policy the policy's name
	 * @return its leasing, or {@code null} when it was never leased
	 */
	public @Nullable PolicyLease find(String policy) {
		return this.byPolicy.get(policy);
	}

	/**
	 * Tells a listener of every leased policy: those leased already, now, and those leased later, when their first
	 * limiter is.
	 * @param listener told once per policy
	 */
	public void forEachPolicy(Consumer<PolicyLease> listener) {
		this.listeners.add(listener);
		this.byPolicy.values().forEach(listener);
	}

	@Override
	public void start() {
		this.running = true;
	}

	/**
	 * Closes every leased limiter, as {@link #close()} does.
	 */
	@Override
	public void stop() {
		this.running = false;
		close();
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return PHASE;
	}

	/**
	 * Closes every leased limiter, returning unused permits where the algorithm takes them back.
	 */
	@Override
	public void close() {
		this.byPolicy.values().forEach((lease) -> lease.retainOnly(Set.of()));
	}

	/**
	 * One policy's leased limiters (one per plan) and its statistics since start: those of the limiters in use and
	 * those of the limiters closed before.
	 */
	public static final class PolicyLease implements LeaseStats {

		private final String policy;

		private final List<LeasedRateLimiter> live = new CopyOnWriteArrayList<>();

		private final ConcurrentMap<String, Long> retired = new ConcurrentHashMap<>();

		PolicyLease(String policy) {
			this.policy = policy;
		}

		/**
		 * The policy's name.
		 * @return the name
		 */
		public String policy() {
			return this.policy;
		}

		void add(LeasedRateLimiter limiter) {
			this.live.add(limiter);
		}

		/**
		 * Closes the limiters no policy uses any more, outside this lease's lock (a close waits for the shared state
		 * to take permits back, which metrics and the endpoint must not wait for), then moves their statistics to the
		 * retired totals, once each, however many refreshes close them at the same time.
		 */
		void retainOnly(Set<RateLimiter> inUse) {
			List<LeasedRateLimiter> unused = new ArrayList<>();
			for (LeasedRateLimiter limiter : this.live) {
				if (!inUse.contains(limiter)) {
					unused.add(limiter);
				}
			}
			for (LeasedRateLimiter limiter : unused) {
				try {
					limiter.close();
				}
				catch (RuntimeException ex) {
					logger.warn("Closing the leases of rate limit policy '" + this.policy + "' failed: " + ex, ex);
				}
			}
			synchronized (this) {
				for (LeasedRateLimiter limiter : unused) {
					if (this.live.remove(limiter)) {
						LeaseStats stats = limiter.stats();
						add("renewals", stats.renewals());
						add("leased", stats.permitsLeased());
						add("returned", stats.permitsReturned());
						add("expired", stats.permitsExpired());
						add("hits", stats.leaseHits());
						add("waited", stats.waitedForRenewal());
						add("exact", stats.decidedExactly());
						add("exactAdmitted", stats.permitsAdmittedExactly());
					}
				}
			}
		}

		private void add(String counter, long value) {
			this.retired.merge(counter, value, Long::sum);
		}

		private synchronized long total(String counter, ToLongFunction<LeaseStats> live) {
			return this.retired.getOrDefault(counter, 0L) + current(live);
		}

		private synchronized long current(ToLongFunction<LeaseStats> stat) {
			long sum = 0;
			for (LeasedRateLimiter limiter : this.live) {
				sum += stat.applyAsLong(limiter.stats());
			}
			return sum;
		}

		@Override
		public long renewals() {
			return total("renewals", LeaseStats::renewals);
		}

		@Override
		public long permitsLeased() {
			return total("leased", LeaseStats::permitsLeased);
		}

		@Override
		public long permitsReturned() {
			return total("returned", LeaseStats::permitsReturned);
		}

		@Override
		public long permitsExpired() {
			return total("expired", LeaseStats::permitsExpired);
		}

		@Override
		public long leaseHits() {
			return total("hits", LeaseStats::leaseHits);
		}

		@Override
		public long waitedForRenewal() {
			return total("waited", LeaseStats::waitedForRenewal);
		}

		@Override
		public long decidedExactly() {
			return total("exact", LeaseStats::decidedExactly);
		}

		@Override
		public long permitsAdmittedExactly() {
			return total("exactAdmitted", LeaseStats::permitsAdmittedExactly);
		}

		@Override
		public long leasesHeld() {
			return current(LeaseStats::leasesHeld);
		}

		@Override
		public long permitsHeld() {
			return current(LeaseStats::permitsHeld);
		}

	}

}
