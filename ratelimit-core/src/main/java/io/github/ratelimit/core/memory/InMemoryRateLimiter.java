package io.github.ratelimit.core.memory;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.github.ratelimit.core.AbstractRateLimiter;
import io.github.ratelimit.core.LeaseGrant;
import io.github.ratelimit.core.Limit;
import io.github.ratelimit.core.LimitDecision;
import io.github.ratelimit.core.Policy;
import io.github.ratelimit.core.StorageKeys;

import org.jspecify.annotations.Nullable;

/**
 * A policy's limiter in this process. One client's limits are evaluated and updated together inside one atomic
 * {@link java.util.concurrent.ConcurrentMap#compute compute} of the backend's cache, so concurrent decisions are
 * exact.
 */
class InMemoryRateLimiter extends AbstractRateLimiter {

	private final StorageKeys keys;

	private final InMemoryRateLimiterBackend backend;

	private final InMemoryAlgorithm algorithm;

	InMemoryRateLimiter(Policy policy, StorageKeys keys, InMemoryRateLimiterBackend backend) {
		super(policy);
		this.keys = keys;
		this.backend = backend;
		this.algorithm = InMemoryAlgorithm.of(policy.algorithm());
	}

	@Override
	protected CompletionStage<List<LimitDecision>> evaluate(String key, long permits, boolean consume) {
		LimitDecision[] outcomes = new LimitDecision[policy().limits().size()];
		this.backend.entries()
			.compute(entryKey(key), (entryKey, entry) -> decide(entry, this.backend.now(), permits, consume, 0, 0, outcomes));
		return CompletableFuture.completedFuture(Arrays.asList(outcomes));
	}

	@Override
	protected CompletionStage<List<LimitDecision>> reserve(String key, long permits, long maxWaitMicros) {
		LimitDecision[] outcomes = new LimitDecision[policy().limits().size()];
		this.backend.entries()
			.compute(entryKey(key), (entryKey, entry) -> reserve(entry, this.backend.now(), permits, maxWaitMicros,
					outcomes));
		return CompletableFuture.completedFuture(Arrays.asList(outcomes));
	}

	/**
	 * Reserves inside the map's atomic update: every limit asked first without consuming, for the time all of them
	 * have the permits (the largest retry-after), then, when all admit, taken as at that time.
	 */
	private @Nullable Entry reserve(@Nullable Entry entry, long now, long permits, long maxWait,
			LimitDecision[] outcomes) {
		List<Limit> limits = policy().limits();
		long due = 0;
		for (int i = 0; i < limits.size(); i++) {
			LimitDecision outcome = this.algorithm.reserve(live(entry, i, now), limits.get(i), now, permits, false,
					maxWait, 0).outcome();
			if (!outcome.allowed()) {
				return decide(entry, now, permits, true, maxWait, 0, outcomes);
			}
			due = Math.max(due, outcome.retryAfterMicros());
		}
		return decide(entry, now, permits, true, maxWait, due, outcomes);
	}

	@Override
	protected CompletionStage<LeaseGrant> lease(String key, long minimum, long maximum) {
		List<Limit> limits = policy().limits();
		LimitDecision[] outcomes = new LimitDecision[limits.size()];
		long[] grant = new long[2];
		this.backend.entries().compute(entryKey(key), (entryKey, entry) -> {
			long now = this.backend.now();
			long available = maximum;
			for (int i = 0; i < limits.size(); i++) {
				available = Math.min(available, this.algorithm.available(live(entry, i, now), limits.get(i), now));
			}
			grant[0] = (available >= minimum) ? available : 0;
			grant[1] = now;
			return decide(entry, now, Math.max(grant[0], minimum), true, 0, 0, outcomes);
		});
		return CompletableFuture.completedFuture(leaseGrant(Arrays.asList(outcomes), grant[0], minimum, grant[1]));
	}

	@Override
	protected CompletionStage<Long> returnLeased(String key, long takenAtMicros, long permits) {
		List<Limit> limits = policy().limits();
		long[] returned = new long[1];
		this.backend.entries().computeIfPresent(entryKey(key), (entryKey, entry) -> {
			long now = this.backend.now();
			long[][] states = new long[limits.size()][];
			long back = permits;
			for (int i = 0; i < limits.size(); i++) {
				long[] state = live(entry, i, now);
				states[i] = (state != null) ? InMemoryFixedWindow.giveBack(state, limits.get(i), takenAtMicros, permits)
						: entry.states[i];
				back = Math.min(back, (state != null) ? state[1] - states[i][1] : 0);
			}
			returned[0] = back;
			return new Entry(states, entry.expiries);
		});
		return CompletableFuture.completedFuture(returned[0]);
	}

	/**
	 * Evaluates every limit for one request, inside the map's atomic update, and answers the entry to keep; a
	 * {@code maxWait} above 0 reserves (consuming as at {@code now + due}).
	 */
	private @Nullable Entry decide(@Nullable Entry entry, long now, long permits, boolean consume, long maxWait,
			long due, LimitDecision[] outcomes) {
		List<Limit> limits = policy().limits();
		long[][] states = new long[limits.size()][];
		InMemoryAlgorithm.Step[] steps = new InMemoryAlgorithm.Step[limits.size()];
		boolean admitted = true;
		for (int i = 0; i < limits.size(); i++) {
			states[i] = live(entry, i, now);
			steps[i] = (maxWait > 0)
					? this.algorithm.reserve(states[i], limits.get(i), now, permits, consume, maxWait, due)
					: this.algorithm.evaluate(states[i], limits.get(i), now, permits, consume);
			outcomes[i] = steps[i].outcome();
			admitted &= outcomes[i].allowed();
		}
		if (!admitted || !consume) {
			return entry;
		}
		long[] expiries = new long[limits.size()];
		for (int i = 0; i < limits.size(); i++) {
			states[i] = this.algorithm.admit(states[i], steps[i], limits.get(i), now, permits);
			expiries[i] = steps[i].expiresAt();
		}
		return new Entry(states, expiries);
	}

	/** The state of the entry's limit {@code i}, or {@code null} when there is none or it has expired. */
	private static long @Nullable [] live(@Nullable Entry entry, int i, long now) {
		return (entry != null && entry.expiries[i] > now) ? entry.states[i] : null;
	}

	@Override
	protected CompletionStage<Void> clear(String key) {
		this.backend.entries().remove(entryKey(key));
		return CompletableFuture.completedFuture(null);
	}

	/**
	 * How long the state of a client is kept, or {@code null} when none is.
	 * @param key the client's key
	 * @return the longest time any of its limits' state is kept, in microseconds
	 */
	@Nullable Long retentionMicros(String key) {
		Entry entry = this.backend.entries().get(entryKey(key));
		if (entry == null) {
			return null;
		}
		return Arrays.stream(entry.expiries).max().orElse(0) - this.backend.now();
	}

	private String entryKey(String key) {
		return this.keys.clientKey(key);
	}

	/**
	 * The state of one client's limits, replaced on every admitted decision, inside the map's atomic update (which is
	 * also the only place an algorithm may update a state in place).
	 */
	static final class Entry {

		private final long[][] states;

		private final long[] expiries;

		private final long expiresAt;

		Entry(long[][] states, long[] expiries) {
			this.states = states;
			this.expiries = expiries;
			this.expiresAt = Arrays.stream(expiries).max().orElse(0);
		}

		long expiresAt() {
			return this.expiresAt;
		}

		long[][] states() {
			return this.states;
		}

		long[] expiries() {
			return this.expiries;
		}

	}

}
