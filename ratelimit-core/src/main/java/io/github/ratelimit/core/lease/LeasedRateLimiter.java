package io.github.ratelimit.core.lease;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.RemovalCause;
import com.github.benmanes.caffeine.cache.Scheduler;
import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.LeaseGrant;
import io.github.ratelimit.core.Limit;
import io.github.ratelimit.core.Policy;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.core.lease.Lease.Parcel;
import io.github.ratelimit.core.lease.Lease.Waiter;
import org.jspecify.annotations.Nullable;

/**
 * A limiter that decides from leases of the delegate's permits: it takes a batch of a key's permits from the shared
 * state in one call ({@link RateLimiter#tryLeaseAsync(String, long, long)}) and hands them out locally until they are
 * used up or too old, so it never admits a permit the shared state did not grant.
 * <p>
 * Per key at most one renewal call is in flight: requests of that key that the lease in hand does not cover wait for
 * it (without blocking a thread in {@link #tryAcquireAsync(String, long)}) and are then served from the new lease in
 * arrival order; other keys never wait for it. A refused renewal refuses, with the shared state's answer, every
 * waiting request of at least the permits it asked for. A failed renewal completes every waiting request
 * exceptionally with the delegate's failure, while requests the lease in hand covers are still decided locally.
 * <p>
 * A lease is taken for {@code min(settings.batch, the policy's smallest capacity)} permits, or when
 * {@linkplain LeaseSettings#adaptive() adaptive}, for what the instance's own recent rate of the key would use in
 * half the maximum age ({@code ceil(rate x maxAge / 2)}, at least 1, at most that batch; the rate is measured between
 * renewals and smoothed, and a key's first lease takes 1 permit, its rate not known yet). Permits are handed out for
 * at most {@link LeaseSettings#maxAge()} after the call that took them was sent, and a fixed window's permits no later
 * than the end of the window they were taken in. Unused permits of a fixed window are given back to their window when
 * the lease expires by age, is evicted or the limiter is closed; the token bucket's and GCRA's expire (they cannot be
 * given back without risking admissions the limit never allowed), and {@link #stats()} counts them.
 * <p>
 * Leases live in a bounded cache (at most {@link #DEFAULT_MAXIMUM_KEYS} keys unless told otherwise); a key whose
 * lease was evicted just takes a new one. After {@link #close()} every request is decided exactly by the delegate.
 */
public final class LeasedRateLimiter implements RateLimiter, AutoCloseable {

	/** The most keys whose leases are kept when no bound is given. */
	public static final long DEFAULT_MAXIMUM_KEYS = 10_000;

	/** Renewals a waiting request sits through before it is decided exactly by the delegate instead. */
	static final int MAXIMUM_ROUNDS = 3;

	private static final Duration CLOSE_WAIT = Duration.ofSeconds(5);

	/**
	 * The threads that give leased permits back, shared by every leased limiter of the JVM: one at most, started when
	 * there is something to give back and gone when idle for a minute (a {@link ForkJoinPool}'s hand-over never parks
	 * the thread that hands a return over, an event loop included).
	 */
	static final ForkJoinPool RETURNS = pool("ratelimit-lease-returns-", 1);

	/**
	 * The threads that make the rounds of renewal following one whose grant was already there (a backend that
	 * answers on the calling thread), and the renewals ahead of need of a delegate that blocks, shared by every
	 * leased limiter of the JVM: as many as the JVM has processors
	 * (at least two), started when needed and gone when idle for a minute.
	 */
	static final ForkJoinPool RENEWALS = pool("ratelimit-lease-renewals-",
			Math.max(2, Runtime.getRuntime().availableProcessors()));

	/** The rounds of renewal a thread of {@link #RENEWALS} makes in a row for one key. */
	static final int ROUNDS_PER_TURN = 16;

	private final RateLimiter delegate;

	private final LeaseSettings settings;

	private final long smallestCapacity;

	private final long batch;

	private final long maxAgeNanos;

	private final boolean fixedWindow;

	private final LongSupplier nanoClock;

	private final LeaseCounters counters = new LeaseCounters();

	private final Set<CompletableFuture<Void>> returns = ConcurrentHashMap.newKeySet();

	private final Cache<String, Lease> leases;

	private volatile boolean closed;

	/**
	 * Creates a leased limiter keeping the leases of at most {@value #DEFAULT_MAXIMUM_KEYS} keys.
	 * @param delegate the limiter of the shared state, of a leasable algorithm
	 * @param settings how to lease
	 * @throws IllegalArgumentException when the delegate's algorithm cannot be leased
	 */
	public LeasedRateLimiter(RateLimiter delegate, LeaseSettings settings) {
		this(delegate, settings, DEFAULT_MAXIMUM_KEYS);
	}

	/**
	 * Creates a leased limiter.
	 * @param delegate the limiter of the shared state, of a leasable algorithm
	 * @param settings how to lease
	 * @param maximumKeys the most keys whose leases are kept, at least 1; beyond it the least likely to be used again
	 * is evicted (its unused permits given back or counted expired)
	 * @throws IllegalArgumentException when the delegate's algorithm cannot be leased or {@code maximumKeys} is below 1
	 */
	public LeasedRateLimiter(RateLimiter delegate, LeaseSettings settings, long maximumKeys) {
		this(delegate, settings, maximumKeys, System::nanoTime);
	}

	LeasedRateLimiter(RateLimiter delegate, LeaseSettings settings, long maximumKeys, LongSupplier nanoClock) {
		Policy policy = delegate.policy();
		if (!policy.algorithm().leasable()) {
			throw new IllegalArgumentException("Policy '" + policy.name() + "' uses " + policy.algorithm().id()
					+ ", which cannot be leased; lease token-bucket, gcra or fixed-window policies");
		}
		if (maximumKeys < 1) {
			throw new IllegalArgumentException("Maximum keys must be at least 1, was " + maximumKeys);
		}
		this.delegate = delegate;
		this.settings = settings;
		this.smallestCapacity = policy.smallestCapacity();
		this.batch = Math.min(settings.batch(), this.smallestCapacity);
		this.maxAgeNanos = settings.maxAge().toNanos();
		this.fixedWindow = policy.algorithm() == Algorithm.FIXED_WINDOW;
		this.nanoClock = nanoClock;
		this.leases = Caffeine.newBuilder()
			.maximumSize(maximumKeys)
			.expireAfterAccess(settings.maxAge())
			.ticker(nanoClock::getAsLong)
			.scheduler(Scheduler.systemScheduler())
			.executor(Runnable::run)
			.<String, Lease>removalListener((key, lease, cause) -> {
				if (key != null && lease != null && cause != RemovalCause.REPLACED) {
					retire(key, lease, true);
				}
			})
			.build();
	}

	/**
	 * Decides a request from the lease in hand, waiting for no I/O: a renewal ahead of need it starts is sent (on this
	 * thread when the delegate does not block), never waited for.
	 * @param key the client's key
	 * @param permits the request's cost
	 * @return the decision, or {@code null} when the lease in hand does not cover the request
	 */
	@Override
	public @Nullable Decision tryFromLease(String key, long permits) {
		if (this.closed || key == null || permits < 1) {
			return null;
		}
		Lease lease = this.leases.getIfPresent(key);
		if (lease == null) {
			return null;
		}
		long now = this.nanoClock.getAsLong();
		Decision decision = takeWithoutLock(key, lease, permits, now);
		if (decision != null) {
			return decision;
		}
		List<Parcel> expired;
		Renewal ahead = null;
		synchronized (lease) {
			if (lease.retired) {
				return null;
			}
			expired = lease.dropExpired(now);
			decision = lease.take(permits, now);
			if (decision != null) {
				ahead = renewalAhead(lease, now);
			}
		}
		dispose(key, expired, true);
		if (decision != null) {
			this.counters.local.increment();
		}
		renewAhead(key, lease, ahead);
		return decision;
	}

	/**
	 * Decides a request from the oldest parcel in hand without a lock ({@link Lease#tryTake}), and starts a renewal
	 * ahead of need when that left the lease at its low-water mark.
	 * @return the decision, or {@code null} when the locked path must decide
	 */
	private @Nullable Decision takeWithoutLock(String key, Lease lease, long permits, long now) {
		Decision decision = lease.tryTake(permits, now);
		if (decision != null) {
			this.counters.local.increment();
			if (lease.lowOnPermits()) {
				Renewal ahead;
				synchronized (lease) {
					ahead = renewalAhead(lease, now);
				}
				renewAhead(key, lease, ahead);
			}
		}
		return decision;
	}

	/**
	 * Starts a renewal ahead of need when the lease in hand fell below its low-water mark ({@link Lease#belowLowWater});
	 * called holding the lease's monitor.
	 * @return the renewal to make, or {@code null}
	 */
	private @Nullable Renewal renewalAhead(Lease lease, long now) {
		return (lease.belowLowWater() && batchSize(lease.rate(), 1) > 1)
				? renewal(1, batchSize(lease.startRenewal(now), 1), now) : null;
	}

	/**
	 * Makes a renewal started ahead of need; no request waits for it. A delegate that does not block
	 * ({@link RateLimiter#blocking()}: its call only sends, as Lettuce's) is called on the request's thread, sparing
	 * a hand-over to another thread and its wake-up per renewal; one that blocks (Jedis) is called on a thread of
	 * {@link #RENEWALS}, never on the request's (which waits for no I/O here, and may be an event loop).
	 */
	private void renewAhead(String key, Lease lease, @Nullable Renewal ahead) {
		if (ahead != null) {
			this.counters.renewedAhead.increment();
			if (this.delegate.blocking()) {
				RENEWALS.execute(() -> renew(key, lease, ahead));
			}
			else {
				renew(key, lease, ahead);
			}
		}
	}

	/**
	 * Whether a renewal of the key's lease is in flight (for tests: one started ahead may run on another thread).
	 */
	boolean renewing(String key) {
		Lease lease = this.leases.getIfPresent(key);
		if (lease == null) {
			return false;
		}
		return lease.renewing;
	}

	/**
	 * The lock of the key's lease (for tests: a lease in hand is taken from without it).
	 */
	Object monitorOf(String key) {
		return this.leases.get(key, (k) -> new Lease(this.counters, this.batch));
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
		return this.counters;
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

	/**
	 * Whether the delegate blocks: a request this limiter decides locally never does, but one it waits or decides
	 * exactly for calls the delegate.
	 * @return the delegate's {@link RateLimiter#blocking()}
	 */
	@Override
	public boolean blocking() {
		return this.delegate.blocking();
	}

	/**
	 * Decides from the lease in hand, or once the key's renewal (started by this request or one before it) completes.
	 * @param key the client's key, not empty
	 * @param permits the request's cost, at least 1
	 * @return the decision; completed exceptionally as the delegate's would be when the renewal fails
	 */
	@Override
	public CompletionStage<Decision> tryAcquireAsync(String key, long permits) {
		if (key == null || key.isEmpty() || permits < 1 || permits > this.smallestCapacity || this.closed) {
			return this.delegate.tryAcquireAsync(key, permits);
		}
		Lease lease = this.leases.get(key, (k) -> new Lease(this.counters, this.batch));
		long now = this.nanoClock.getAsLong();
		Decision decision = takeWithoutLock(key, lease, permits, now);
		if (decision != null) {
			return CompletableFuture.completedFuture(decision);
		}
		List<Parcel> expired = null;
		Waiter waiter = null;
		Renewal ahead = null;
		long maximum = 0;
		synchronized (lease) {
			if (!lease.retired) {
				expired = lease.dropExpired(now);
				decision = lease.take(permits, now);
				if (decision != null) {
					ahead = renewalAhead(lease, now);
				}
				else {
					lease.waiting(permits);
					if (lease.renewing) {
						waiter = new Waiter(permits);
						lease.waiters.addLast(waiter);
					}
					else {
						long size = batchSize(lease.measure(now), permits);
						if (!this.settings.adaptive() || size > permits) {
							lease.renewing = true;
							maximum = size;
							waiter = new Waiter(permits);
							lease.waiters.addLast(waiter);
						}
					}
				}
			}
		}
		dispose(key, expired, true);
		if (decision != null) {
			this.counters.local.increment();
			renewAhead(key, lease, ahead);
			return CompletableFuture.completedFuture(decision);
		}
		if (waiter == null) {
			// retired, or a key too cold for a lease to pay (it would cover this request only)
			return decideExactly(key, permits);
		}
		this.counters.waited.increment();
		if (maximum > 0) {
			renew(key, lease, renewal(permits, maximum, now));
		}
		return waiter.future;
	}

	@Override
	public Decision peek(String key) {
		return this.delegate.peek(key);
	}

	/**
	 * Drops the key's lease in hand (its permits are not given back: the state they came from is forgotten) and resets
	 * the key's shared state.
	 * @param key the client's key, not empty
	 */
	@Override
	public void reset(String key) {
		if (key != null) {
			Lease lease = this.leases.getIfPresent(key);
			if (lease != null) {
				retire(key, lease, false);
				this.leases.invalidate(key);
			}
		}
		this.delegate.reset(key);
	}

	/**
	 * Returns the unused permits of every lease in hand where the algorithm takes them back (waiting up to 5 seconds
	 * for the shared state to take them), and drops the leases; requests after this are decided exactly.
	 */
	@Override
	public void close() {
		this.closed = true;
		this.leases.asMap().forEach((key, lease) -> retire(key, lease, true));
		this.leases.invalidateAll();
		try {
			CompletableFuture.allOf(this.returns.toArray(CompletableFuture[]::new))
				.get(CLOSE_WAIT.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (ExecutionException | TimeoutException ex) {
			// counted as expired by each return; the shared state's own expiry reclaims the rest
		}
	}

	/**
	 * The permits the next lease of a key asks for at most.
	 * @param rate the key's rate in permits per nanosecond, 0 when not known yet
	 * @param permits the request's cost, which a lease must cover
	 */
	private long batchSize(double rate, long permits) {
		long size = this.batch;
		if (this.settings.adaptive()) {
			double wanted = Math.ceil(rate * this.maxAgeNanos / 2);
			size = (rate == 0) ? 1 : (long) Math.max(1, Math.min(this.batch, wanted));
		}
		return Math.max(size, permits);
	}

	/**
	 * Renews a key's lease, and renews again while waiting requests are left that the grants did not serve. The
	 * request that starts a renewal makes its first round only: a round whose grant is pending continues from its
	 * completion, round after round; the rounds that follow a grant already there (a backend that answers on the
	 * caller's thread: the in-memory one, Jedis) run on {@link #RENEWALS}, one after another in a loop, never nested
	 * within the previous one's completion (so the stack does not grow with the rounds) and never on the thread of a
	 * request that has its answer (which, under many threads on one key, could otherwise renew for the others for as
	 * long as they keep coming).
	 */
	private void renew(String key, Lease lease, Renewal renewal) {
		Renewal next = round(key, lease, renewal);
		if (next != null) {
			RENEWALS.execute(() -> renewFor(key, lease, next));
		}
	}

	/**
	 * Renews on a thread of {@link #RENEWALS}: round after round while their grants are already there, at most
	 * {@value #ROUNDS_PER_TURN} before the pool's other keys get their turn.
	 */
	private void renewFor(String key, Lease lease, Renewal renewal) {
		Renewal next = renewal;
		for (int rounds = 0; next != null; rounds++) {
			if (rounds == ROUNDS_PER_TURN) {
				Renewal later = next;
				RENEWALS.execute(() -> renewFor(key, lease, later));
				return;
			}
			next = round(key, lease, next);
		}
	}

	/**
	 * One round of renewal.
	 * @return the next round when this one's grant was already there and requests are left waiting; {@code null}
	 * when none are, or when the grant is pending (its completion goes on with the rounds)
	 */
	private @Nullable Renewal round(String key, Lease lease, Renewal renewal) {
		CompletableFuture<LeaseGrant> grant = grant(key, renewal);
		if (!grant.isDone()) {
			grant.whenComplete((granted, failure) -> {
				Renewal following = completeRenewal(key, lease, renewal, granted, failure);
				if (following != null) {
					renew(key, lease, following);
				}
			});
			return null;
		}
		LeaseGrant granted = null;
		Throwable failure = null;
		try {
			granted = grant.join();
		}
		catch (CompletionException | CancellationException ex) {
			failure = ex;
		}
		return completeRenewal(key, lease, renewal, granted, failure);
	}

	/**
	 * The delegate's grant for one round of renewal; a delegate that throws, even with an {@link Error}, fails the
	 * round instead.
	 */
	private CompletableFuture<LeaseGrant> grant(String key, Renewal renewal) {
		try {
			return this.delegate.tryLeaseAsync(key, renewal.minimum, renewal.maximum).toCompletableFuture();
		}
		catch (RuntimeException | Error ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	/**
	 * Completes a round of renewal ({@link #renewed}); should that fail, even with an {@link Error} (a stack overflow
	 * in a waiter's continuation), the round ends anyway: every request still waiting is completed with the failure
	 * and the renewal cleared, so that no request of the key is left waiting for a renewal nobody makes.
	 * @return the next round, or {@code null} when no request is left waiting
	 */
	private @Nullable Renewal completeRenewal(String key, Lease lease, Renewal renewal, @Nullable LeaseGrant grant,
			@Nullable Throwable failure) {
		try {
			return renewed(key, lease, renewal.minimum, renewal.sentNanos, grant, failure);
		}
		catch (RuntimeException | Error ex) {
			List<Waiter> stranded;
			synchronized (lease) {
				lease.renewing = false;
				stranded = new ArrayList<>(lease.waiters);
				lease.waiters.clear();
			}
			for (Waiter waiter : stranded) {
				waiter.future.completeExceptionally(ex);
			}
			return null;
		}
	}

	/**
	 * Completes a renewal: adds the grant to the lease, serves the waiting requests it covers and refuses those it
	 * refuses; the rest wait for the next renewal.
	 * @return the next renewal, or {@code null} when no request is left waiting
	 */
	private @Nullable Renewal renewed(String key, Lease lease, long minimum, long sentNanos,
			@Nullable LeaseGrant grant, @Nullable Throwable failure) {
		long now = this.nanoClock.getAsLong();
		List<Runnable> completions = new ArrayList<>();
		List<Parcel> disposed = new ArrayList<>(2);
		List<Waiter> exact = new ArrayList<>(0);
		boolean giveBack;
		long nextMinimum = 0;
		long nextMaximum = 0;
		synchronized (lease) {
			lease.renewed(now - sentNanos, grant != null && grant.allowed());
			giveBack = lease.giveBack;
			if (grant == null) {
				Throwable cause = unwrap(failure);
				for (Waiter waiter : lease.waiters) {
					completions.add(() -> waiter.future.completeExceptionally(cause));
				}
				lease.waiters.clear();
			}
			else {
				addAll(disposed, lease.dropExpired(now));
				if (grant.allowed()) {
					this.counters.leased.add(grant.granted());
					lease.add(parcel(grant, sentNanos));
					addAll(disposed, lease.dropExpired(now));
				}
				for (var waiters = lease.waiters.iterator(); waiters.hasNext();) {
					Waiter waiter = waiters.next();
					Decision decision = lease.take(waiter.permits, now);
					if (decision != null) {
						lease.served(waiter.permits);
					}
					else if (!grant.allowed() && waiter.permits >= minimum) {
						decision = grant.decision();
					}
					if (decision != null) {
						Decision answer = decision;
						completions.add(() -> waiter.future.complete(answer));
						waiters.remove();
					}
					else if (++waiter.rounds >= MAXIMUM_ROUNDS || lease.retired) {
						exact.add(waiter);
						waiters.remove();
					}
				}
				if (lease.retired) {
					disposed.addAll(lease.drain());
				}
				else if (!lease.waiters.isEmpty()) {
					nextMinimum = lease.waiters.getFirst().permits;
					nextMaximum = batchSize(lease.startRenewal(now), nextMinimum);
				}
			}
		}
		try {
			dispose(key, disposed, giveBack);
		}
		finally {
			// the waiters taken off the queue are answered whatever happened since
			completions.forEach(Runnable::run);
			for (Waiter waiter : exact) {
				decideExactly(key, waiter);
			}
		}
		return (nextMaximum > 0) ? renewal(nextMinimum, nextMaximum, now) : null;
	}

	/**
	 * Decides a request that waited too many rounds by the delegate, exactly; its failure, even a throw, fails the
	 * request.
	 */
	private void decideExactly(String key, Waiter waiter) {
		CompletionStage<Decision> decision;
		try {
			decision = decideExactly(key, waiter.permits);
		}
		catch (RuntimeException | Error ex) {
			waiter.future.completeExceptionally(ex);
			return;
		}
		decision.whenComplete((decided, ex) -> {
			if (ex != null) {
				waiter.future.completeExceptionally(unwrap(ex));
			}
			else {
				waiter.future.complete(decided);
			}
		});
	}

	/**
	 * Decides a request of a leased key exactly by the delegate, counted in {@link #stats()}.
	 */
	private CompletionStage<Decision> decideExactly(String key, long permits) {
		this.counters.exact.increment();
		CompletionStage<Decision> decision = this.delegate.tryAcquireAsync(key, permits);
		CompletableFuture<Decision> counted = new CompletableFuture<>();
		decision.whenComplete((decided, failure) -> {
			if (failure != null) {
				// as the delegate failed, unwrapped as before
				counted.completeExceptionally(failure);
				return;
			}
			if (decided.allowed()) {
				this.counters.exactAdmitted.add(permits);
			}
			counted.complete(decided);
		});
		return counted;
	}

	/**
	 * A round of renewal, counted in {@link #stats()} as it is decided on (a renewal ahead of need is counted before
	 * the request that started it returns, though its call is made on another thread).
	 */
	private Renewal renewal(long minimum, long maximum, long now) {
		this.counters.renewals.increment();
		return new Renewal(minimum, maximum, now);
	}

	/**
	 * One round of a key's renewal: the permits asked for and when the call was sent.
	 */
	private record Renewal(long minimum, long maximum, long sentNanos) {
	}

	/**
	 * The parcel of a grant: handed out for at most the maximum age after the call was sent and, for a fixed window,
	 * no later than the end of the earliest-ending window it was taken in, measured from when the call was sent (the
	 * shared state decided later, so the window ends no sooner than that).
	 */
	private Parcel parcel(LeaseGrant grant, long sentNanos) {
		long windowEnd = Long.MAX_VALUE;
		long expiresAt = sentNanos + this.maxAgeNanos;
		if (this.fixedWindow) {
			long left = Long.MAX_VALUE;
			for (Limit limit : policy().limits()) {
				long period = limit.periodMicros();
				left = Math.min(left, period - Math.floorMod(grant.takenAtMicros(), period));
			}
			windowEnd = sentNanos + left * 1000;
			expiresAt = Math.min(expiresAt, windowEnd);
		}
		return new Parcel(grant, sentNanos, windowEnd, expiresAt);
	}

	/**
	 * Takes a lease out of use: its permits are disposed of and no request takes from it again.
	 */
	private void retire(String key, Lease lease, boolean giveBack) {
		List<Parcel> drained;
		synchronized (lease) {
			if (lease.retired) {
				return;
			}
			lease.retired = true;
			lease.giveBack = giveBack;
			drained = lease.drain();
		}
		dispose(key, drained, giveBack);
	}

	/**
	 * Disposes of permits no longer handed out: a fixed window's go back to their window while it lasts (when
	 * {@code giveBack}); all others expire.
	 */
	private void dispose(String key, @Nullable List<Parcel> parcels, boolean giveBack) {
		if (parcels == null) {
			return;
		}
		long now = this.nanoClock.getAsLong();
		for (Parcel parcel : parcels) {
			long left = parcel.removedLeft;
			if (left == 0) {
				continue;
			}
			if (giveBack && this.fixedWindow && now - parcel.windowEndNanos < 0) {
				giveBack(key, parcel.grant, left);
			}
			else {
				this.counters.expired.add(left);
			}
		}
	}

	/**
	 * Gives permits back on a thread of {@link #RETURNS}: never on the thread that disposes of them (a request's, in
	 * {@link #tryFromLease}, which does no I/O; an event loop; the JDK's one delay-scheduler thread, on which the
	 * leases' cache expires them), as a blocking backend (Jedis) makes its call on the thread that asks.
	 */
	private void giveBack(String key, LeaseGrant grant, long permits) {
		CompletableFuture<Long> taken = CompletableFuture.supplyAsync(() -> returnLeased(key, grant, permits), RETURNS)
			.thenCompose((returned) -> returned);
		CompletableFuture<Void> counted = taken.handle((returned, failure) -> {
			long back = (returned != null) ? Math.max(0, Math.min(permits, returned)) : 0;
			this.counters.returned.add(back);
			this.counters.expired.add(permits - back);
			return null;
		});
		this.returns.add(counted);
		counted.whenComplete((ignored, failure) -> this.returns.remove(counted));
	}

	private CompletableFuture<Long> returnLeased(String key, LeaseGrant grant, long permits) {
		try {
			return this.delegate.returnLeasedAsync(key, grant, permits).toCompletableFuture();
		}
		catch (RuntimeException | Error ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	private static ForkJoinPool pool(String prefix, int threads) {
		return new ForkJoinPool(threads, (pool) -> {
			ForkJoinWorkerThread thread = ForkJoinPool.defaultForkJoinWorkerThreadFactory.newThread(pool);
			thread.setName(prefix + thread.getPoolIndex());
			thread.setDaemon(true);
			return thread;
		}, null, true);
	}

	private static void addAll(List<Parcel> into, @Nullable List<Parcel> parcels) {
		if (parcels != null) {
			into.addAll(parcels);
		}
	}

	private static Throwable unwrap(@Nullable Throwable failure) {
		Throwable cause = failure;
		while (cause instanceof CompletionException && cause.getCause() != null) {
			cause = cause.getCause();
		}
		return (cause != null) ? cause : new IllegalStateException("Lease renewal completed without a grant");
	}

}
