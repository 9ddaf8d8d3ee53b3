package io.github.ratelimit.core.resilience;

import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.LongSupplier;

import io.github.ratelimit.core.Decision;
import org.jspecify.annotations.Nullable;

/**
 * Remembers the clients the backend has just refused, so that they are refused again locally, without a backend
 * call, until their retry time.
 * <p>
 * It never refuses what the backend would admit at that moment: a refusal of {@code p} permits with a retry-after
 * of {@code t} means no request of {@code p} or more permits can succeed before {@code t} (time only replenishes
 * limits, other requests only consume them), so only requests of at least {@code p} permits are refused from the
 * cache; smaller ones still ask the backend. What the cache cannot see is the backend's state changing under it: a
 * reset of the client through another instance, or a backend that lost its data. So an entry is kept at most
 * {@code maxAge} (then one call asks the backend again), a reset through this instance forgets the client, and
 * {@link #clear()} forgets everyone (after the backend was unreachable). It holds at most {@code maxEntries} clients;
 * when full, expired entries are dropped, and if none are, new refusals are not remembered.
 */
public final class DenyCache {

	private final int maxEntries;

	private final long maxAgeNanos;

	private final LongSupplier nanoTime;

	private final ConcurrentMap<Key, Entry> entries = new ConcurrentHashMap<>();

	/**
	 * Creates a cache on the JVM's monotonic clock.
	 * @param maxEntries the most clients remembered
	 * @param maxAge the longest a refusal is answered from the cache before the backend is asked again
	 */
	public DenyCache(int maxEntries, Duration maxAge) {
		this(maxEntries, maxAge, System::nanoTime);
	}

	/**
	 * Creates a cache.
	 * @param maxEntries the most clients remembered
	 * @param maxAge the longest a refusal is answered from the cache before the backend is asked again
	 * @param nanoTime a monotonic clock in nanoseconds
	 */
	public DenyCache(int maxEntries, Duration maxAge, LongSupplier nanoTime) {
		this.maxEntries = maxEntries;
		this.maxAgeNanos = maxAge.toNanos();
		this.nanoTime = nanoTime;
	}

	/**
	 * The refusal to give a request without asking the backend, if one is known.
	 * @param policy the policy name
	 * @param client the client's key
	 * @param permits the permits asked for
	 * @return the refusal, its waits shortened by the time passed, or {@code null} to ask the backend
	 */
	public @Nullable Decision find(String policy, String client, long permits) {
		Entry entry = this.entries.get(new Key(policy, client));
		if (entry == null || permits < entry.permits()) {
			return null;
		}
		long now = this.nanoTime.getAsLong();
		if (entry.expires() - now <= 0) {
			this.entries.remove(new Key(policy, client), entry);
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
	 * Remembers a refusal by the backend. A refusal no wait can help (a cost above a capacity) is not remembered: the
	 * limiter refuses it without calling the backend anyway, and a cache entry would answer later, different costs
	 * with its reasons.
	 * @param policy the policy name
	 * @param client the client's key
	 * @param permits the permits the refused request asked for
	 * @param denial the backend's refusal
	 */
	public void remember(String policy, String client, long permits, Decision denial) {
		if (denial.allowed() || !denial.satisfiable() || denial.retryAfter().isZero()
				|| denial.retryAfter().isNegative()) {
			return;
		}
		long now = this.nanoTime.getAsLong();
		if (this.entries.size() >= this.maxEntries) {
			this.entries.values().removeIf((entry) -> entry.expires() - now <= 0);
			if (this.entries.size() >= this.maxEntries) {
				return;
			}
		}
		long retryNanos = denial.retryAfter().toNanos();
		this.entries.put(new Key(policy, client),
				new Entry(now + retryNanos, now + Math.min(retryNanos, this.maxAgeNanos), now, permits, denial));
	}

	/**
	 * Forgets a client, after it was reset.
	 * @param policy the policy name
	 * @param client the client's key
	 */
	public void forget(String policy, String client) {
		this.entries.remove(new Key(policy, client));
	}

	/**
	 * Forgets every client, after the backend could not be reached (it may have come back empty).
	 */
	public void clear() {
		this.entries.clear();
	}

	/**
	 * The number of clients remembered.
	 * @return the number of entries
	 */
	public int size() {
		return this.entries.size();
	}

	private record Key(String policy, String client) {
	}

	private record Entry(long until, long expires, long since, long permits, Decision denial) {
	}

}
