package io.github.ratelimit.core;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.jspecify.annotations.Nullable;

/**
 * One waiting caller's attempts at a limiter, and what to give back when the caller gives up: on a limiter that takes
 * permits back ({@link RateLimiter#takesBack()}, the fixed window) an attempt takes exactly its cost as a grant
 * ({@link RateLimiter#tryLeaseAsync tryLeaseAsync(key, n, n)}: the same script and decision as
 * {@code tryAcquireAsync}, plus the Redis time a return needs) and remembers it, so that an admission that reached
 * nobody (its caller cancelled, interrupted or out of time while the call was in flight) goes back to its window; on
 * any other limiter an attempt reserves for what is left of the caller's wait
 * ({@link RateLimiter#tryReserveAsync}). Used by {@link WaitingRateLimiter} and by integrations that wait with
 * {@link io.github.ratelimit.core.wait.PermitQueues} (the Spring enforcer); one per waiting caller.
 */
public final class WaitReceipt {

	private final RateLimiter limiter;

	private final String key;

	private final long permits;

	/** The grant of the caller's latest admission by a limiter that takes permits back. */
	private volatile @Nullable LeaseGrant latest;

	/**
	 * Creates the receipt of one waiting caller.
	 * @param limiter the limiter it waits at
	 * @param key the key it decides, as the limiter stores it
	 * @param permits its cost
	 */
	public WaitReceipt(RateLimiter limiter, String key, long permits) {
		this.limiter = limiter;
		this.key = key;
		this.permits = permits;
	}

	/**
	 * Whether this is the receipt of a caller at that limiter and key.
	 * @param limiter a limiter
	 * @param key a key, as the limiter stores it
	 * @return whether both are this receipt's
	 */
	public boolean isFor(RateLimiter limiter, String key) {
		return this.limiter == limiter && this.key.equals(key);
	}

	/**
	 * Makes one attempt.
	 * @param remaining what is left of the caller's wait: what a reservation may wait for its permits (zero: decide
	 * at once)
	 * @return the decision, as {@code tryAcquireAsync} or {@code tryReserveAsync} would make it
	 */
	public CompletionStage<Decision> attempt(Duration remaining) {
		if (this.limiter.takesBack()) {
			return this.limiter.tryLeaseAsync(this.key, this.permits, this.permits).thenApply((grant) -> {
				if (grant.allowed()) {
					this.latest = grant;
				}
				return grant.decision();
			});
		}
		return remaining.isZero() ? this.limiter.tryAcquireAsync(this.key, this.permits)
				: this.limiter.tryReserveAsync(this.key, this.permits, remaining);
	}

	/**
	 * Gives back an admission nobody used, when it is the grant of this receipt's latest attempt.
	 * @param admission the admission that reached no caller
	 * @return the permits the limit took back: 0 at once when there is nothing to give back; completed exceptionally
	 * when the limiter failed
	 */
	public CompletionStage<Long> giveBack(Decision admission) {
		LeaseGrant grant = this.latest;
		if (grant == null || grant.decision() != admission) {
			return CompletableFuture.completedFuture(0L);
		}
		try {
			return this.limiter.returnLeasedAsync(this.key, grant, this.permits);
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

}
