package io.github.ratelimit.core;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.LongAdder;

import org.jspecify.annotations.Nullable;

import io.github.ratelimit.core.wait.PermitQueues;

/**
 * A limiter whose callers wait for their permits instead of being refused: for outbound calls and background work
 * that must keep to a shared rate, never over it. A refused caller sleeps until its next permit as the backend
 * computed it (on Redis, Redis' own clock), asks again, and so on up to its maximum wait; callers of one key in this
 * instance wait in line, in arrival order, and only the first of them asks the backend ({@link PermitQueues}). A
 * limiter that {@linkplain RateLimiter#reserves() reserves} (the token bucket and GCRA) is asked once per caller: it
 * takes the caller's permits at once when they come due within the caller's maximum wait
 * ({@link RateLimiter#tryReserveAsync}), and the caller sleeps until they are due (the admission's
 * {@link Decision#retryAfter() retry-after} is that sleep), while the next caller in line asks; callers of every
 * instance are then served in the order they asked.
 * <pre class="code">
 * WaitingRateLimiter partner = new WaitingRateLimiter(backend.limiter(policy));
 * Decision decision = partner.acquire("partner-api", 1, Duration.ofSeconds(2));
 * if (decision.allowed()) {
 *     callThePartner();
 * }
 * </pre>
 * The limiter's own {@link RateLimiter#tryFromLease lease in hand} is asked first, so a leased limiter admits from
 * memory while its lease lasts. A backend failure ends the wait with that failure: this class applies no failure mode
 * (the Spring integration does, {@code ratelimit.failure-mode}).
 */
public final class WaitingRateLimiter {

	private final RateLimiter limiter;

	private final @Nullable Executor executor;

	private final LongAdder abandoned = new LongAdder();

	private final LongAdder returned = new LongAdder();

	private final PermitQueues<Decision> queues = new PermitQueues<>(new PermitQueues.Events<>() {

		@Override
		public void abandoned(Object key, Decision admission) {
			WaitingRateLimiter.this.abandoned.increment();
		}

	});

	/**
	 * Waits for permits of a limiter whose calls do not block (in memory, Redis through Lettuce): a caller's later
	 * calls are made on the waiting callers' one timer thread, which must not block.
	 * @param limiter the limiter
	 */
	public WaitingRateLimiter(RateLimiter limiter) {
		this.limiter = limiter;
		this.executor = null;
	}

	/**
	 * Waits for permits of a limiter, a caller's later calls made on an executor: give one whose threads may block for
	 * a limiter whose calls block (Redis through Jedis).
	 * @param limiter the limiter
	 * @param executor where a caller's calls after its first are made
	 */
	public WaitingRateLimiter(RateLimiter limiter, Executor executor) {
		this.limiter = limiter;
		this.executor = executor;
	}

	/**
	 * The limiter waited on.
	 * @return the limiter
	 */
	public RateLimiter limiter() {
		return this.limiter;
	}

	/**
	 * Asks for permits, waiting on the calling thread up to {@code maxWait} for them.
	 * @param key the client's key, not empty
	 * @param permits the cost, at least 1
	 * @param maxWait the longest to wait; zero asks once, as {@link RateLimiter#tryAcquire(String, long)}
	 * @return the admission; or the refusal when the permits could not be had within {@code maxWait} (at once when
	 * the next permit comes later than that), or can never be ({@link Decision#satisfiable()} false, at once)
	 * @throws RuntimeException the backend's failure
	 * @throws java.util.concurrent.CancellationException when the calling thread is interrupted while it waits: its
	 * place is given up and its interrupt flag kept
	 */
	public Decision acquire(String key, long permits, Duration maxWait) {
		// a zero wait is one decision, which an interrupt does not cancel (the backend makes it all the same)
		return Waiting.await(acquireAsync(key, permits, maxWait), !maxWait.isZero());
	}

	/**
	 * Asks for permits, waiting up to {@code maxWait} for them without holding a thread.
	 * @param key the client's key, not empty
	 * @param permits the cost, at least 1
	 * @param maxWait the longest to wait; zero asks once, as {@link RateLimiter#tryAcquireAsync(String, long)}
	 * @return the decision, as for {@link #acquire}; completed exceptionally with the backend's failure. It completes
	 * on the backend client's thread or the waiting callers' timer thread: chain with the {@code *Async} methods for work that
	 * blocks. Cancelling it gives the caller's place up.
	 */
	public CompletableFuture<Decision> acquireAsync(String key, long permits, Duration maxWait) {
		if (permits < 1) {
			throw new IllegalArgumentException("A request costs at least 1 permit, not " + permits);
		}
		if (maxWait.isNegative()) {
			throw new IllegalArgumentException("A wait cannot be negative: " + maxWait);
		}
		Attempt attempt = new Attempt(key, permits);
		if (maxWait.isZero()) {
			return attempt.call(Duration.ZERO).toCompletableFuture();
		}
		return this.queues.acquire(key, permits, maxWait, attempt, this.executor);
	}

	/**
	 * The callers waiting now, for every key.
	 * @return how many
	 */
	public int waiting() {
		return this.queues.waiting();
	}

	/**
	 * Permits granted to callers that had given up (interrupted, cancelled, or out of time while their call was in
	 * flight; or cancelled before their reserved permits came due) that no other caller in line could take: taken
	 * from the limit and not used, except those the limit took back ({@link #returned()}).
	 * @return how many grants since this limiter was created
	 */
	public long abandoned() {
		return this.abandoned.sum();
	}

	/**
	 * Of the {@linkplain #abandoned() abandoned} permits, those the limiter took back ({@link RateLimiter#takesBack()}:
	 * the fixed window, while the window they were taken in lasts), so that they went to later callers.
	 * @return how many permits since this limiter was created
	 */
	public long returned() {
		return this.returned.sum();
	}

	private final class Attempt implements PermitQueues.Attempt<Decision> {

		private final String key;

		private final long permits;

		/** What this caller takes, and gives back if it gives up. */
		private final WaitReceipt receipt;

		Attempt(String key, long permits) {
			this.key = key;
			this.permits = permits;
			this.receipt = new WaitReceipt(WaitingRateLimiter.this.limiter, key, permits);
		}

		@Override
		public java.util.concurrent.CompletionStage<Decision> call(Duration remaining) {
			Decision leased = WaitingRateLimiter.this.limiter.tryFromLease(this.key, this.permits);
			if (leased != null) {
				return CompletableFuture.completedFuture(leased);
			}
			return this.receipt.attempt(remaining);
		}

		@Override
		public void abandoned(Decision admission) {
			this.receipt.giveBack(admission).thenAccept(WaitingRateLimiter.this.returned::add);
		}

		@Override
		public Duration due(Decision admission) {
			return admission.retryAfter();
		}

		@Override
		public boolean admitted(Decision answer) {
			return answer.allowed();
		}

		@Override
		public @Nullable Duration retryAfter(Decision refusal) {
			return refusal.satisfiable() ? refusal.retryAfter() : null;
		}

		@Override
		public @Nullable Decision emptied(Decision admission) {
			// a limiter that reserves lets the next caller reserve at once
			return WaitingRateLimiter.this.limiter.reserves() ? null : Waiting.emptied(admission);
		}

		@Override
		public Duration spacing(Decision refusal) {
			return refusal.limit().period().dividedBy(refusal.limit().capacity());
		}

	}

}
