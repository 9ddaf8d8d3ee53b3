package io.github.ratelimit.core.memory;

import java.time.Clock;
import java.time.Instant;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;

import io.github.ratelimit.core.Policy;
import io.github.ratelimit.core.RateLimitKeys;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.core.RateLimiterBackend;

/**
 * Keeps rate limit state in this process: exact and thread-safe, with the same algorithms and key layout as the Redis
 * backend. Every limit of one instance is its own: N instances admit N times the limit.
 * <p>
 * State that has become equal to a fresh one is dropped, so idle clients cost no memory.
 */
public class InMemoryRateLimiterBackend implements RateLimiterBackend {

	private static final int SWEEP_EVERY = 4096;

	private final Clock clock;

	private final String keyPrefix;

	private final ConcurrentMap<String, InMemoryRateLimiter.Entry> entries = new ConcurrentHashMap<>();

	private final AtomicLong decisions = new AtomicLong();

	/**
	 * Creates a backend on the system clock.
	 */
	public InMemoryRateLimiterBackend() {
		this(Clock.systemUTC(), "ratelimit");
	}

	/**
	 * Creates a backend on a clock.
	 * @param clock the clock decisions are made by
	 * @param keyPrefix the namespace of every key
	 */
	public InMemoryRateLimiterBackend(Clock clock, String keyPrefix) {
		this.clock = clock;
		this.keyPrefix = RateLimitKeys.checkPrefix(keyPrefix);
	}

	@Override
	public RateLimiter create(Policy policy) {
		return new InMemoryRateLimiter(policy, new RateLimitKeys(this.keyPrefix, policy), this);
	}

	@Override
	public String name() {
		return "in-memory";
	}

	/**
	 * The number of clients whose state is kept, all policies together.
	 * @return the number of entries
	 */
	public int size() {
		sweep(now());
		return this.entries.size();
	}

	ConcurrentMap<String, InMemoryRateLimiter.Entry> entries() {
		return this.entries;
	}

	long now() {
		Instant instant = this.clock.instant();
		return Math.addExact(Math.multiplyExact(instant.getEpochSecond(), 1_000_000L), instant.getNano() / 1000);
	}

	void afterDecision(long now) {
		if (this.decisions.incrementAndGet() % SWEEP_EVERY == 0) {
			sweep(now);
		}
	}

	private void sweep(long now) {
		this.entries.values().removeIf((entry) -> entry.expiresAt() <= now);
	}

}
