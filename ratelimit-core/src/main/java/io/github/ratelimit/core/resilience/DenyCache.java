package io.github.ratelimit.core.resilience;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import io.github.ratelimit.core.Decision;
import org.jspecify.annotations.Nullable;

/**
 * Remembers the clients the backend has just refused, so that they are refused again locally, without a backend
 * call, until their retry time.
 * <p>
 * It never refuses what the backend would admit at that moment, but for the one round trip of a re-ask (below): a
 * refusal of {@code p} permits with a retry-after of {@code t} means no request of {@code p} or more permits can
 * succeed before {@code t} (time only replenishes limits, other requests only consume them), so only requests of at
 * least {@code p} permits are refused from the cache; smaller ones still ask the backend. The wait is counted from
 * when the backend call started (the backend decided at some point after that), so an entry never outlives the
 * backend's refusal. What the cache cannot see is the backend's state changing under it: a reset of the client
 * through another instance, or a backend that lost its data. So an entry is kept at most {@code maxAge} (then the
 * backend is asked again), a reset through this instance forgets the client, and {@link #clear()} forgets everyone; a
 * refusal whose call started before the last reset or clear is not remembered after it. It holds at most
 * {@code maxEntries} clients: beyond that, the entry least likely to be used again is evicted (Caffeine's eviction
 * policy), which costs that client's next request a backend call and never admits anything. Entries expire on their
 * own; nothing sweeps on a request thread.
 * <p>
 * When an entry ages out (its retry time or its maximum age has come), the backend is asked again once: the first
 * request that finds it so is told to ask ({@link #find} answers {@code null}), and the client's other requests are
 * refused from the aged entry until that call ends, so that a client flooding over many connections costs one
 * backend call per expiry, not one per connection. The caller that asks ends its re-ask, whatever the backend
 * answered: a refusal with {@link #remember} (the new refusal replaces the entry), an admission with
 * {@link #admitted} (the entry is forgotten), no answer (a failure, a timeout, no call made) with
 * {@link #unanswered} (the next request asks again). An aged entry waits for its re-ask at most one more
 * {@code maxAge}, then it is gone; once asked again, it answers until the re-ask ends, or at most
 * {@value #REASK_HOLD_SECONDS} s if it never does.
 */
public final class DenyCache {

	/** The most clients remembered unless told otherwise. */
	public static final long DEFAULT_MAXIMUM_CLIENTS = 10_000;

	/** The longest a refusal is answered from the cache, unless told otherwise, before the backend is asked again. */
	public static final Duration DEFAULT_MAX_AGE = Duration.ofSeconds(1);

	/**
	 * The longest an aged entry answers while its re-ask is on its way: far beyond any backend call's timeout, and
	 * reached only by a re-ask its caller never ended.
	 */
	static final long REASK_HOLD_SECONDS = 10;

	private final LongSupplier nanoTime;

	private final long maxAgeNanos;

	private final Cache<Key, Entry> entries;

	private final AtomicLong lastReset;

	/**
	 * Creates a cache on the JVM's monotonic clock.
	 * @param maxEntries the most clients remembered
	 * @param maxAge the longest a refusal is answered from the cache before the backend is asked again
	 */
	public DenyCache(long maxEntries, Duration maxAge) {
		this(maxEntries, maxAge, System::nanoTime);
	}

	/**
	 * Creates a cache.
	 * @param maxEntries the most clients remembered
	 * @param maxAge the longest a refusal is answered from the cache before the backend is asked again
	 * @param nanoTime a monotonic clock in nanoseconds, the one {@link #now()} reads
	 * @throws IllegalArgumentException when {@code maxEntries} is below 1
	 */
	public DenyCache(long maxEntries, Duration maxAge, LongSupplier nanoTime) {
		if (maxEntries < 1) {
			throw new IllegalArgumentException("Maximum entries must be at least 1, was " + maxEntries);
		}
		this.nanoTime = nanoTime;
		this.maxAgeNanos = maxAge.toNanos();
		this.entries = Caffeine.newBuilder()
			.maximumSize(maxEntries)
			.expireAfter(Expiry.writing((Key key, Entry entry) -> Duration
				.ofNanos(Math.max(0, entry.expires + this.maxAgeNanos - now()))))
			.ticker(nanoTime::getAsLong)
			.build();
		this.lastReset = new AtomicLong(nanoTime.getAsLong() - 1);
	}

	/**
	 * The cache's clock: read it when a backend call starts, and give that to {@link #remember}.
	 * @return the current time in nanoseconds
	 */
	public long now() {
		return this.nanoTime.getAsLong();
	}

	/**
	 * The refusal to give a request without asking the backend, if one is known. When the client's entry has aged
	 * out, the first caller is told to ask the backend, and must end that re-ask ({@link #remember},
	 * {@link #admitted} or {@link #unanswered}); until it does, the others get the aged refusal.
	 * @param policy the policy name
	 * @param client the client's key
	 * @param permits the permits asked for
	 * @return the refusal, its waits shortened by the time passed (not below zero), or {@code null} to ask the
	 * backend
	 */
	public @Nullable Decision find(String policy, String client, long permits) {
		Key key = new Key(policy, client);
		Entry entry = this.entries.getIfPresent(key);
		if (entry == null || permits < entry.permits) {
			return null;
		}
		long now = now();
		if (entry.expires - now <= 0 && entry.reask(now)) {
			this.entries.policy().expireVariably().ifPresent((expiry) -> expiry.setExpiresAfter(key,
					Duration.ofSeconds(REASK_HOLD_SECONDS)));
			return null;
		}
		Decision denial = entry.denial;
		Duration elapsed = Duration.ofNanos(now - entry.since);
		return new Decision(false, denial.limit(), denial.remaining(), Duration.ofNanos(Math.max(0, entry.until - now)),
				shortened(denial.resetAfter(), elapsed), shortened(denial.nextPermitAfter(), elapsed),
				denial.satisfiable(), denial.violated());
	}

	private static Duration shortened(Duration wait, Duration elapsed) {
		Duration left = wait.minus(elapsed);
		return left.isNegative() ? Duration.ZERO : left;
	}

	/**
	 * Remembers a refusal by the backend, its waits counted from when the call started, in place of the client's
	 * entry (so ending its re-ask). A refusal no wait can help (a cost above a capacity) is not remembered: the
	 * limiter refuses it without consuming anything anyway, and a cache entry would answer later, different costs
	 * with its reasons. Nor is a refusal whose call started before the last {@link #forget} or {@link #clear()}: it
	 * may describe state the reset removed.
	 * @param policy the policy name
	 * @param client the client's key
	 * @param permits the permits the refused request asked for
	 * @param denial the backend's refusal
	 * @param startedNanos {@link #now()} when the backend call started
	 */
	public void remember(String policy, String client, long permits, Decision denial, long startedNanos) {
		if (denial.allowed() || !denial.satisfiable() || denial.retryAfter().isZero()
				|| denial.retryAfter().isNegative() || !startedAfterLastReset(startedNanos)) {
			unanswered(policy, client, startedNanos);
			return;
		}
		long retryNanos = denial.retryAfter().toNanos();
		Key key = new Key(policy, client);
		Entry entry = new Entry(startedNanos + retryNanos, startedNanos + Math.min(retryNanos, this.maxAgeNanos),
				startedNanos, permits, denial);
		this.entries.put(key, entry);
		if (!startedAfterLastReset(startedNanos)) {
			// a reset came between the check and the put: it must win
			this.entries.asMap().remove(key, entry);
		}
	}

	/**
	 * Tells of a backend call that admitted a client: a remembered refusal of no more permits, older than the call, is
	 * forgotten (the client has what it was refused), and so ends a re-ask.
	 * @param policy the policy name
	 * @param client the client's key
	 * @param permits the permits the admitted request asked for
	 * @param startedNanos {@link #now()} when the backend call started
	 */
	public void admitted(String policy, String client, long permits, long startedNanos) {
		Key key = new Key(policy, client);
		Entry entry = this.entries.getIfPresent(key);
		if (entry == null) {
			return;
		}
		if (permits >= entry.permits && startedNanos - entry.since > 0) {
			this.entries.asMap().remove(key, entry);
		}
		else {
			entry.unanswered(startedNanos);
		}
	}

	/**
	 * Tells of a backend call of a client that gave no answer (it failed, timed out, or was never made): when it was
	 * the client's re-ask, the next request asks again.
	 * @param policy the policy name
	 * @param client the client's key
	 * @param startedNanos {@link #now()} when the backend call started (or would have)
	 */
	public void unanswered(String policy, String client, long startedNanos) {
		Entry entry = this.entries.getIfPresent(new Key(policy, client));
		if (entry != null) {
			entry.unanswered(startedNanos);
		}
	}

	/**
	 * Forgets a client, after it was reset: neither an entry nor a refusal in flight is answered from the cache
	 * after this.
	 * @param policy the policy name
	 * @param client the client's key
	 */
	public void forget(String policy, String client) {
		markReset();
		this.entries.invalidate(new Key(policy, client));
	}

	/**
	 * Forgets every client, and every refusal in flight.
	 */
	public void clear() {
		markReset();
		this.entries.invalidateAll();
	}

	/**
	 * The number of clients remembered, once expired entries are removed.
	 * @return the number of entries, at most the maximum
	 */
	public long size() {
		this.entries.cleanUp();
		return this.entries.estimatedSize();
	}

	private boolean startedAfterLastReset(long startedNanos) {
		return startedNanos - this.lastReset.get() > 0;
	}

	private void markReset() {
		long now = now();
		this.lastReset.accumulateAndGet(now, (last, current) -> (current - last > 0) ? current : last);
	}

	private record Key(String policy, String client) {
	}

	/**
	 * A remembered refusal: until when it holds, when it ages out, when its call started, and whether a re-ask of the
	 * backend is on its way (made at {@code reaskedAt}, by the caller whose call started at or after it).
	 */
	private static final class Entry {

		final long until;

		final long expires;

		final long since;

		final long permits;

		final Decision denial;

		private boolean reasking;

		private long reaskedAt;

		Entry(long until, long expires, long since, long permits, Decision denial) {
			this.until = until;
			this.expires = expires;
			this.since = since;
			this.permits = permits;
			this.denial = denial;
		}

		synchronized boolean reask(long now) {
			if (this.reasking) {
				return false;
			}
			this.reasking = true;
			this.reaskedAt = now;
			return true;
		}

		synchronized void unanswered(long startedNanos) {
			if (this.reasking && startedNanos - this.reaskedAt >= 0) {
				this.reasking = false;
			}
		}

	}

}
