package io.github.ratelimit.redis;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * What edge networks do, and what leasing replaces, written only to show how it fails: each instance counts its own
 * admissions locally, refuses once its view of the total (the shared count it last saw plus its own count since)
 * reaches the limit, and every {@code interval} adds its count to a shared Redis counter and reads the total back.
 * Between syncs every instance admits against a stale total, so together they overshoot.
 */
final class NaiveSyncedCounter implements AutoCloseable {

	private final StringRedisTemplate redis;

	private final String key;

	private final long limit;

	private final ScheduledExecutorService sync = Executors.newSingleThreadScheduledExecutor();

	/** Admissions since the last sync. */
	private long unsynced;

	/** The shared total as of the last sync. */
	private long sharedTotal;

	NaiveSyncedCounter(StringRedisTemplate redis, String key, long limit, Duration interval) {
		this.redis = redis;
		this.key = key;
		this.limit = limit;
		this.sync.scheduleWithFixedDelay(this::sync, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
	}

	synchronized boolean tryAcquire() {
		if (this.sharedTotal + this.unsynced >= this.limit) {
			return false;
		}
		this.unsynced++;
		return true;
	}

	/**
	 * Adds the admissions since the last sync to the shared counter (the I/O outside the lock, as a real one would).
	 */
	void sync() {
		long delta;
		synchronized (this) {
			delta = this.unsynced;
			this.unsynced = 0;
		}
		Long total = this.redis.opsForValue().increment(this.key, delta);
		synchronized (this) {
			this.sharedTotal = (total != null) ? total : this.sharedTotal + delta;
		}
	}

	@Override
	public void close() {
		this.sync.shutdownNow();
	}

}
