package io.github.ratelimit.core.memory;

import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import com.github.benmanes.caffeine.cache.RemovalCause;
import com.github.benmanes.caffeine.cache.Ticker;
import io.github.ratelimit.core.Policy;
import io.github.ratelimit.core.StorageKeys;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.core.RateLimiterBackend;
import org.jspecify.annotations.Nullable;

/**
 * Keeps rate limit state in this process: exact and thread-safe, with the same algorithms and key layout as the Redis
 * backend. Every limit of one instance is its own: N instances admit N times the limit.
 * <p>
 * Memory is bounded: state that has become equal to a fresh one expires (so idle clients cost no memory), and at
 * most {@code maximumClients} clients (over all policies) are kept. Beyond that bound the state of the client least
 * likely to be used again (Caffeine's eviction policy) is evicted, and that client starts afresh: it may be admitted
 * up to its limits again, early. Decisions stay exact for every client whose state is kept; the first eviction is
 * logged as a warning and all are counted ({@link #evictions()}). Expired state is removed by Caffeine's maintenance,
 * never by a sweep of the whole map on a request thread.
 */
public class InMemoryRateLimiterBackend implements RateLimiterBackend {

	/** The most clients kept when no bound is given. */
	public static final long DEFAULT_MAXIMUM_CLIENTS = 100_000;

	private static final System.Logger logger = System.getLogger(InMemoryRateLimiterBackend.class.getName());

	private final Clock clock;

	private final String keyPrefix;

	private final long maximumClients;

	private final AtomicLong evictions = new AtomicLong();

	private final Cache<String, InMemoryRateLimiter.Entry> entries;

	/**
	 * Creates a backend on the system clock, keeping at most {@value #DEFAULT_MAXIMUM_CLIENTS} clients.
	 */
	public InMemoryRateLimiterBackend() {
		this(Clock.systemUTC(), "ratelimit");
	}

	/**
	 * Creates a backend on a clock, keeping at most {@value #DEFAULT_MAXIMUM_CLIENTS} clients.
	 * @param clock the clock decisions are made by
	 * @param keyPrefix the namespace of every key
	 */
	public InMemoryRateLimiterBackend(Clock clock, String keyPrefix) {
		this(clock, keyPrefix, DEFAULT_MAXIMUM_CLIENTS);
	}

	/**
	 * Creates a backend on a clock.
	 * @param clock the clock decisions are made by, also the clock state expires by
	 * @param keyPrefix the namespace of every key
	 * @param maximumClients the most clients (over all policies) whose state is kept
	 * @throws IllegalArgumentException when {@code maximumClients} is below 1
	 */
	public InMemoryRateLimiterBackend(Clock clock, String keyPrefix, long maximumClients) {
		this(clock, keyPrefix, maximumClients, () -> Math.multiplyExact(micros(clock), 1000L));
	}

	/**
	 * Creates a backend whose state expires by its own ticker: tests that probe later times and step back give one
	 * that stands still, so no probe drops state.
	 */
	InMemoryRateLimiterBackend(Clock clock, String keyPrefix, long maximumClients, Ticker expiryTicker) {
		if (maximumClients < 1) {
			throw new IllegalArgumentException("Maximum clients must be at least 1, was " + maximumClients);
		}
		this.clock = clock;
		this.keyPrefix = StorageKeys.checkPrefix(keyPrefix);
		this.maximumClients = maximumClients;
		this.entries = Caffeine.newBuilder()
			.maximumSize(maximumClients)
			.expireAfter(Expiry.writing((String key, InMemoryRateLimiter.Entry entry) -> Duration
				.ofNanos(Math.max(0, Math.multiplyExact(entry.expiresAt(), 1000L) - expiryTicker.read()))))
			.ticker(expiryTicker)
			.evictionListener(this::evicted)
			.build();
	}

	@Override
	public RateLimiter create(Policy policy) {
		return new InMemoryRateLimiter(policy, new StorageKeys(this.keyPrefix, policy), this);
	}

	@Override
	public String name() {
		return "in-memory";
	}

	/**
	 * The number of clients whose state is kept, all policies together, once expired state is removed.
	 * @return the number of entries, at most the maximum
	 */
	public long size() {
		this.entries.cleanUp();
		return this.entries.estimatedSize();
	}

	/**
	 * The number of clients whose live state was evicted because the maximum was reached; each started afresh.
	 * @return the evictions since this backend was created
	 */
	public long evictions() {
		return this.evictions.get();
	}

	ConcurrentMap<String, InMemoryRateLimiter.Entry> entries() {
		return this.entries.asMap();
	}

	long now() {
		return micros(this.clock);
	}

	private static long micros(Clock clock) {
		Instant instant = clock.instant();
		return Math.addExact(Math.multiplyExact(instant.getEpochSecond(), 1_000_000L), instant.getNano() / 1000);
	}

	private void evicted(@Nullable String key, InMemoryRateLimiter.@Nullable Entry entry, RemovalCause cause) {
		if (cause == RemovalCause.SIZE && this.evictions.getAndIncrement() == 0) {
			logger.log(Level.WARNING, "In-memory rate limit state reached its maximum of " + this.maximumClients
					+ " clients: the least used clients' state is evicted and they start afresh (logged once)");
		}
	}

}
