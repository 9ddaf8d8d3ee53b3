package io.github.ratelimit.core.resilience;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;

import org.jspecify.annotations.Nullable;

/**
 * Stops sending every request to a backend that has just failed: after a failure the breaker stays open for an
 * interval, in which callers decide without the backend at once; then a single call probes it, and its success
 * closes the breaker again.
 * <p>
 * One state, one interval: no failure-rate windows. A rate limiter's backend calls are uniform and time-bounded, so
 * the first failure is signal enough, and a probe a second later finds out whether it is over.
 */
public final class CircuitBreaker {

	private final long openNanos;

	private final LongSupplier nanoTime;

	private final AtomicReference<@Nullable Open> open = new AtomicReference<>();

	private final AtomicBoolean probing = new AtomicBoolean();

	private final List<Runnable> recoveryListeners = new CopyOnWriteArrayList<>();

	/**
	 * Creates a breaker on the JVM's monotonic clock.
	 * @param openInterval how long the breaker stays open after a failure before it lets a probe through
	 */
	public CircuitBreaker(Duration openInterval) {
		this(openInterval, System::nanoTime);
	}

	/**
	 * Creates a breaker.
	 * @param openInterval how long the breaker stays open after a failure before it lets a probe through
	 * @param nanoTime a monotonic clock in nanoseconds
	 */
	public CircuitBreaker(Duration openInterval, LongSupplier nanoTime) {
		if (openInterval.isNegative() || openInterval.isZero()) {
			throw new IllegalArgumentException("Open interval must be positive, was " + openInterval);
		}
		this.openNanos = openInterval.toNanos();
		this.nanoTime = nanoTime;
	}

	/**
	 * Whether a call may go to the backend now: always while closed; while open, only one probe once the interval
	 * has passed. A caller given {@code true} must report the call's result.
	 * @return whether to call the backend
	 */
	public boolean tryCall() {
		Open current = this.open.get();
		if (current == null) {
			return true;
		}
		if (this.nanoTime.getAsLong() - current.until() < 0) {
			return false;
		}
		return this.probing.compareAndSet(false, true);
	}

	/**
	 * Reports a successful call: the breaker closes, and if it was open, the recovery listeners run.
	 */
	public void onSuccess() {
		boolean wasOpen = this.open.get() != null && this.open.getAndSet(null) != null;
		if (this.probing.get()) {
			// read first: on the hot path, a write to this shared flag on every call would contend between threads
			this.probing.set(false);
		}
		if (wasOpen) {
			this.recoveryListeners.forEach(Runnable::run);
		}
	}

	/**
	 * Adds a listener run each time the backend answers again after a failure (it may have lost its data).
	 * @param listener the listener
	 */
	public void whenRecovered(Runnable listener) {
		this.recoveryListeners.add(listener);
	}

	/**
	 * Reports a failed call: the breaker opens, or stays open, for another interval.
	 * @param error what went wrong
	 */
	public void onFailure(Throwable error) {
		this.open.set(new Open(this.nanoTime.getAsLong() + this.openNanos, error));
		this.probing.set(false);
	}

	/**
	 * Whether the breaker is open: the last call failed.
	 * @return whether it is open
	 */
	public boolean isOpen() {
		return this.open.get() != null;
	}

	/**
	 * The error of the failed call that opened the breaker.
	 * @return the error, or {@code null} while closed
	 */
	public @Nullable Throwable lastError() {
		Open current = this.open.get();
		return (current != null) ? current.error() : null;
	}

	/**
	 * How long until the breaker lets a probe through, at least one second: what a refused client is told to wait.
	 * @return the wait
	 */
	public Duration retryAfter() {
		Open current = this.open.get();
		long nanos = (current != null) ? current.until() - this.nanoTime.getAsLong() : 0;
		return (nanos > 1_000_000_000L) ? Duration.ofNanos(nanos) : Duration.ofSeconds(1);
	}

	private record Open(long until, Throwable error) {
	}

}
