package io.github.ratelimit.core.lease;

import java.util.concurrent.CompletionStage;

import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.Policy;
import io.github.ratelimit.core.RateLimiter;
import org.jspecify.annotations.Nullable;

/**
 * SKELETON (to be implemented): a limiter that decides from leases of the delegate's permits.
 */
public final class LeasedRateLimiter implements RateLimiter, AutoCloseable {

	private final RateLimiter delegate;

	private final LeaseSettings settings;

	/**
	 * Creates a leased limiter.
	 * @param delegate the limiter of the shared state, of a leasable algorithm
	 * @param settings how to lease
	 */
	public LeasedRateLimiter(RateLimiter delegate, LeaseSettings settings) {
		this.delegate = delegate;
		this.settings = settings;
	}

	/**
	 * Decides a request from the lease in hand, without any I/O.
	 * @param key the client's key
	 * @param permits the request's cost
	 * @return the decision, or {@code null} when the lease in hand does not cover the request
	 */
	public @Nullable Decision tryLocal(String key, long permits) {
		throw new UnsupportedOperationException("skeleton");
	}

	/**
	 * How this limiter leases.
	 * @return the settings
	 */
	public LeaseSettings settings() {
		return this.settings;
	}

	/**
	 * What this limiter's leases did so far.
	 * @return the statistics, live
	 */
	public LeaseStats stats() {
		throw new UnsupportedOperationException("skeleton");
	}

	/**
	 * The limiter of the shared state.
	 * @return the delegate
	 */
	public RateLimiter delegate() {
		return this.delegate;
	}

	@Override
	public Policy policy() {
		return this.delegate.policy();
	}

	@Override
	public Decision tryAcquire(String key, long permits) {
		throw new UnsupportedOperationException("skeleton");
	}

	@Override
	public CompletionStage<Decision> tryAcquireAsync(String key, long permits) {
		throw new UnsupportedOperationException("skeleton");
	}

	@Override
	public Decision peek(String key) {
		return this.delegate.peek(key);
	}

	@Override
	public void reset(String key) {
		this.delegate.reset(key);
	}

	/**
	 * Returns the unused permits of every lease in hand where the algorithm takes them back, and drops the leases.
	 */
	@Override
	public void close() {
	}

}
