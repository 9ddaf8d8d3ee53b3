package io.github.ratelimit.spring;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * This instance's outcomes per policy since start, as the {@code ratelimits} endpoint shows them.
 */
public class RateLimitCounters implements RateLimitRecorder {

	private final ConcurrentMap<String, Tally> tallies = new ConcurrentHashMap<>();

	@Override
	public void record(RateLimitOutcome outcome, long backendNanos) {
		Tally tally = this.tallies.computeIfAbsent(outcome.policy().name(), (name) -> new Tally());
		(outcome.refused() ? tally.denied : tally.allowed).increment();
		if (outcome.kind().failed()) {
			tally.failed.increment();
		}
	}

	/**
	 * The counts of one policy.
	 * @param policy the policy name
	 * @return its counts, zero when it has decided nothing yet
	 */
	public Counts of(String policy) {
		Tally tally = this.tallies.get(policy);
		return (tally != null) ? new Counts(tally.allowed.sum(), tally.denied.sum(), tally.failed.sum())
				: new Counts(0, 0, 0);
	}

	/**
	 * One policy's counts.
	 *
	 * @param allowed requests let through
	 * @param denied requests refused
	 * @param failed requests decided without the backend because it failed (also counted as allowed or denied)
	 */
	public record Counts(long allowed, long denied, long failed) {
	}

	private static final class Tally {

		private final LongAdder allowed = new LongAdder();

		private final LongAdder denied = new LongAdder();

		private final LongAdder failed = new LongAdder();

	}

}
