package io.github.ratelimit.core;

import java.time.Duration;
import java.util.concurrent.CompletionStage;

import org.jspecify.annotations.Nullable;

/**
 * Decides one policy for any number of clients, each identified by a key.
 * <p>
 * Implementations are thread-safe. A denied request consumes nothing from any limit.
 */
public interface RateLimiter {

	/**
	 * The policy this limiter decides.
	 * @return the policy
	 */
	Policy policy();

	/**
	 * Asks for one permit for {@code key}.
	 * @param key the client's key, not empty
	 * @return the decision
	 */
	default Decision tryAcquire(String key) {
		return tryAcquire(key, 1);
	}

	/**
	 * Asks for {@code permits} permits for {@code key}, granted from every limit or from none, and waits for the
	 * decision on the calling thread: {@link #tryAcquireAsync(String, long)}'s decision, awaited (the one way every
	 * limiter decides).
	 * @param key the client's key, not empty
	 * @param permits the request's cost, at least 1
	 * @return the decision; when {@code permits} exceeds a limit's capacity, a denial that is not
	 * {@linkplain Decision#satisfiable() satisfiable}
	 * @throws RuntimeException the backend's failure (Redis': a Spring {@code DataAccessException}, a timeout past the
	 * decision timeout among them)
	 * @throws java.util.concurrent.CancellationException when the calling thread is interrupted while it waits (its
	 * interrupt flag is kept)
	 */
	default Decision tryAcquire(String key, long permits) {
		return Waiting.await(tryAcquireAsync(key, permits));
	}

	/**
	 * Asks for {@code permits} permits for {@code key} without blocking the calling thread where the backend's client
	 * allows it (in memory, and Redis through Lettuce; Redis through a blocking client such as Jedis decides before
	 * returning). Every decision is made here; {@link #tryAcquire(String, long)} waits for it.
	 * @param key the client's key, not empty
	 * @param permits the request's cost, at least 1
	 * @return the decision when made; completed exceptionally when the backend fails or does not answer in time
	 */
	CompletionStage<Decision> tryAcquireAsync(String key, long permits);

	/**
	 * Asks for {@code permits} permits for {@code key} that may come due later: admits the request when every limit
	 * has them now or will have them within {@code maxWait}, and takes them now, so that no request asking after it
	 * gets them first (a reservation: the limit runs into a debt that the time until they are due pays off). The
	 * admission's {@link Decision#retryAfter()} is how long until they are due: the caller must wait that long before
	 * using them, which keeps every rate as {@link #tryAcquireAsync(String, long)} would. A refusal is
	 * {@code tryAcquireAsync}'s: its retry-after is when the permits are free now, after {@code maxWait}. A limiter
	 * that cannot reserve ({@link #reserves()} false: the windows, the log, a leased limiter) decides as
	 * {@code tryAcquireAsync}, which this default does. How far ahead a limit reserves is at most its period.
	 * @param key the client's key, not empty
	 * @param permits the request's cost, at least 1
	 * @param maxWait the longest the caller will wait for its permits; zero asks as {@code tryAcquireAsync}
	 * @return the decision; completed exceptionally when the backend fails or does not answer in time
	 */
	default CompletionStage<Decision> tryReserveAsync(String key, long permits, Duration maxWait) {
		return tryAcquireAsync(key, permits);
	}

	/**
	 * Whether {@link #tryReserveAsync} reserves permits that come due later, rather than deciding as
	 * {@link #tryAcquireAsync(String, long)}.
	 * @return {@code false} unless this limiter reserves
	 */
	default boolean reserves() {
		return false;
	}

	/**
	 * Whether {@link #returnLeasedAsync} takes permits back (the fixed window, while the window they were taken in
	 * lasts), so that a caller that may not use what it is granted asks with {@link #tryLeaseAsync} for exactly its
	 * cost ({@code minimum} = {@code maximum}: the decision {@link #tryAcquireAsync(String, long)} would make, with a
	 * grant to give back).
	 * @return {@code false} unless this limiter takes leased permits back
	 */
	default boolean takesBack() {
		return false;
	}

	/**
	 * Whether a call blocks the calling thread on I/O even through the async methods ({@link #tryAcquireAsync},
	 * {@link #tryLeaseAsync}), as a blocking Redis client such as Jedis does: a caller that must not block (an event
	 * loop, a request that holds a lease in hand) then makes such calls on a thread that may.
	 * @return {@code false} unless the backend's client blocks
	 */
	default boolean blocking() {
		return false;
	}

	/**
	 * Admits a request from what this limiter holds in this process, without waiting for a backend and without
	 * blocking, when it can: a leased limiter's lease in hand (which may send a renewal of it ahead of need, on this
	 * thread when the backend does not block, and never waits for it). Callers ask this first, and the backend only when it answers
	 * {@code null}; such an admission is not a backend call (no deny cache, no circuit breaker applies to it).
	 * @param key the client's key, not empty
	 * @param permits the request's cost, at least 1
	 * @return the admission, or {@code null} (always, by default) when the backend must decide
	 */
	default @Nullable Decision tryFromLease(String key, long permits) {
		return null;
	}

	/**
	 * Reads the state of {@code key} without consuming anything: the decision one permit would get now.
	 * @param key the client's key, not empty
	 * @return the decision for one permit, nothing consumed
	 */
	Decision peek(String key);

	/**
	 * Forgets every limit's state for {@code key}, so its next request starts from full capacity.
	 * @param key the client's key, not empty
	 */
	void reset(String key);

	/**
	 * Takes a lease: in one atomic call on the shared state, the most permits available for {@code key} between
	 * {@code minimum} and {@code maximum}, by the same algorithm and keys as {@link #tryAcquire(String, long)}, so a
	 * holder can hand them out later without asking again. Only limiters of a {@linkplain Algorithm#leasable()
	 * leasable} algorithm can lease.
	 * @param key the client's key, not empty
	 * @param minimum the fewest permits worth taking, at least 1: when fewer are available, nothing is taken and the
	 * answer is the refusal {@code tryAcquire(key, minimum)} would give
	 * @param maximum the most permits to take, at least {@code minimum}; more than the policy's smallest capacity is
	 * taken as that capacity
	 * @return the grant, when made; completed exceptionally when the backend fails or does not answer in time
	 * @throws UnsupportedOperationException when this limiter cannot lease
	 */
	default CompletionStage<LeaseGrant> tryLeaseAsync(String key, long minimum, long maximum) {
		throw new UnsupportedOperationException("Policy '" + policy().name() + "' (" + policy().algorithm().id()
				+ ") cannot be leased");
	}

	/**
	 * Gives back permits of a lease that were not handed out, where the algorithm can take them back without ever
	 * admitting more than its limit: the fixed window takes them back into the window they were taken from while that
	 * window lasts; the token bucket and GCRA do not take any back (their permits expire with the lease).
	 * @param key the client's key, not empty
	 * @param grant the grant the permits came from
	 * @param permits the permits not handed out, at most {@link LeaseGrant#granted()}
	 * @return how many permits were taken back, when known; completed exceptionally when the backend fails
	 * @throws UnsupportedOperationException when this limiter cannot lease
	 */
	default CompletionStage<Long> returnLeasedAsync(String key, LeaseGrant grant, long permits) {
		throw new UnsupportedOperationException("Policy '" + policy().name() + "' (" + policy().algorithm().id()
				+ ") cannot be leased");
	}

}
