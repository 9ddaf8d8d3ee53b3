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
 * It never refuses what the backend would admit at that moment: a refusal of {@code p} permits with a retry-after
 * of {@code t} means no request of {@code p} or more permits can succeed before {@code t} (time only replenishes
 * limits, other requests only consume them), so only requests of at least {@code p} permits are refused from the
 * cache; smaller ones still ask the backend. The wait is counted from when the backend call started (the backend
 * decided at some point after that), so an entry never outlives the backend's refusal. What the cache cannot see is
 * the backend's state changing under it: a reset of the client through another instance, or a backend that lost its
 * data. So an entry is kept at most {@code maxAge} (then one call asks the backend again), a reset through this
 * instance forgets the client, and {@link #clear()} forgets everyone; a refusal whose call started before the last
 * reset or clear is not remembered after it. It holds at most {@code maxEntries} clients: beyond that, the entry least
 * likely to be used again is evicted (Caffeine's eviction policy), which costs that client's next request a backend
 * call and never admits anything. Entries expire on their own; nothing sweeps on a request thread.
 */
public final class DenyCache {

	/** The most clients remembered unless told otherwise. */
	public static final long DEFAULT_MAXIMUM_CLIENTS = 10_000;

	/** The longest a refusal is answered from the cache, unless told otherwise, before the backend is asked again. */
	public static final Duration DEFAULT_MAX_AGE = Duration.ofSeconds(1);

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
				.ofNanos(Math.max(0, entry.expires() - now()))))
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
	 * The refusal to give a request without asking the backend, if one is known.
	 * @param policy the policy name
	 * @param client the client's key
	 * @param permits the permits asked for
	 * @return the refusal, its waits shortened by the time passed, or {@code null} to ask the backend
	 */
	public @Nullable Decision find(String policy, String client, long permits) {
		Entry entry = this.entries.getIfPresent(new Key(policy, client));
		if (entry == null || permits < entry.permits()) {
			return null;
		}
		long now = now();
		if (entry.expires() - now <= 0) {
			return null;
		}
		long left = entry.until() - now;
		Decision denial = entry.denial();
		Duration elapsed = Duration.ofNanos(now - entry.since());
		return new Decision(false, denial.limit(), denial.remaining(), Duration.ofNanos(left),
				shortened(denial.resetAfter(), elapsed), shortened(denial.nextPermitAfter(), elapsed),
				denial.satisfiable(), denial.violated());
	}

	private static Duration shortened(Duration wait, Duration elapsed) {
		Duration left = wait.minus(elapsed);
		return left.isNegative() ? Duration.ZERO : left;
	}

	/**
	 * Remembers a refusal by the backend, its waits counted from when the call started. A refusal no wait can help
	 * (a cost above a capacity) is not remembered: the limiter refuses it without consuming anything anyway, and a
	 * cache entry would answer later, different costs with its reasons. Nor is a refusal whose call started before
	 * the last {@link #forget} or {@link #clear()}: it may describe state the reset removed.
	 * @param policy the policy name
	 * @param client the client's key
	 * @param permits the permits the refused request asked for
	 * @param denial the backend's refusal
	 * @param startedNanos {@link #now()} when the backend call started
	 */
	public void remember(String policy, String client, long permits, Decision denial, long startedNanos) {
		if (denial.allowed() || !denial.satisfiable() || denial.retryAfter().isZero()
				|| denial.retryAfter().isNegative() || !startedAfterLastReset(startedNanos)) {
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

	private record Entry(long until, long expires, long since, long permits, Decision denial) {
	}

}
