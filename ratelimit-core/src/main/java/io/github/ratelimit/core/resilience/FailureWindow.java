package io.github.ratelimit.core.resilience;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The calls and failures of the last window of time, in ten time buckets that are reused as time moves on.
 * <p>
 * Lock-free and allocation-free on record: a bucket's counters are reset by the first call of its new period, so a
 * call that lands in the same instant as that reset may go uncounted; a failure rate needs no more precision.
 */
final class FailureWindow {

	private static final int BUCKETS = 10;

	private static final long UNUSED = Long.MIN_VALUE;

	private final long bucketNanos;

	private final Bucket[] buckets = new Bucket[BUCKETS];

	FailureWindow(long windowNanos) {
		this.bucketNanos = Math.max(1, windowNanos / BUCKETS);
		for (int i = 0; i < BUCKETS; i++) {
			this.buckets[i] = new Bucket();
		}
	}

	/**
	 * Counts one call in the bucket of the time it started.
	 * @param startNanos when the call started
	 * @param failed whether it failed
	 */
	void record(long startNanos, boolean failed) {
		long index = Math.floorDiv(startNanos, this.bucketNanos);
		Bucket bucket = this.buckets[(int) Math.floorMod(index, BUCKETS)];
		long epoch = bucket.epoch.get();
		if (epoch != index) {
			if (epoch != UNUSED && index < epoch) {
				// a call that started before this bucket moved on: older than the window
				return;
			}
			if (bucket.epoch.compareAndSet(epoch, index)) {
				bucket.calls.reset();
				bucket.failures.reset();
			}
		}
		bucket.calls.increment();
		if (failed) {
			bucket.failures.increment();
		}
	}

	/**
	 * Whether the calls of the window ending now reach the minimum and fail at least at the threshold rate.
	 * @param nowNanos the time now
	 * @param minimumCalls the fewest calls that say anything
	 * @param thresholdPercent the failure rate that opens, in percent
	 * @return whether the window's failure rate is over the threshold
	 */
	boolean exceeds(long nowNanos, int minimumCalls, int thresholdPercent) {
		long now = Math.floorDiv(nowNanos, this.bucketNanos);
		long calls = 0;
		long failures = 0;
		for (Bucket bucket : this.buckets) {
			long epoch = bucket.epoch.get();
			if (epoch != UNUSED && epoch <= now && now - epoch < BUCKETS) {
				calls += bucket.calls.sum();
				failures += bucket.failures.sum();
			}
		}
		return calls >= minimumCalls && failures * 100 >= thresholdPercent * calls;
	}

	/**
	 * Forgets every call, when the breaker closes: what failed before it opened says nothing about now.
	 */
	void clear() {
		for (Bucket bucket : this.buckets) {
			bucket.epoch.set(UNUSED);
		}
	}

	private static final class Bucket {

		private final AtomicLong epoch = new AtomicLong(UNUSED);

		private final LongAdder calls = new LongAdder();

		private final LongAdder failures = new LongAdder();

	}

}
