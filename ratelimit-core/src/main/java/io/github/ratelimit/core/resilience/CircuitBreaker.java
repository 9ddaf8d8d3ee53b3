package io.github.ratelimit.core.resilience;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;

import org.jspecify.annotations.Nullable;

/**
 * Stops sending requests to a backend that is failing: it opens when, over a short window, enough calls were made
 * and enough of them failed; while open, callers decide without the backend at once; after the open duration, one
 * call at a time probes the backend, and the probe's success closes the breaker again.
 * <p>
 * Each call gets a ticket from {@link #tryCall()}, its start time, and reports it back: a success closes an open
 * breaker only when the call started after it opened, and a failure counts only when the call started after it last
 * closed, so a call that was in flight across a change of state never flips it. Only backend failures are to be
 * reported as failures; a call that ends otherwise (a bug in one request, an interrupt, an {@link Error}) is reported
 * with {@link #onIgnored(long)}, which frees the probe slot if it held it. A probe that never reports at all loses its
 * slot after the open duration.
 * <p>
 * Decisions made without a call (from a lease in hand) count as successes ({@link #onLocalSuccess()}): they are
 * requests served while the backend was healthy enough to have granted their permits. Failures that share one error
 * object are one failed call, counted once: the requests that waited for one call (a lease's renewal) all fail with
 * its error, and one slow reply is not as many failures as it had waiters.
 * <p>
 * Why a rate over a time window rather than a count of consecutive failures: when Redis stalls for a moment (a fork,
 * a GC pause), every call in flight fails together, so a handful of consecutive failures says nothing about the next
 * second; under steady load those calls are a small share of the window.
 */
public final class CircuitBreaker {

	/** What {@link #tryCall()} returns when the call must not go to the backend. */
	public static final long NOT_PERMITTED = Long.MIN_VALUE;

	private static final long NO_PROBE = Long.MIN_VALUE;

	private final int failureRateThreshold;

	private final int minimumCalls;

	private final long openNanos;

	private final LongSupplier nanoTime;

	private final FailureWindow window;

	private final AtomicReference<@Nullable Open> open = new AtomicReference<>();

	private final AtomicLong probe = new AtomicLong(NO_PROBE);

	private volatile long closedSince;

	/** The error of the last failure counted, so that the requests of one failed call count once. */
	private final AtomicReference<@Nullable Throwable> lastCounted = new AtomicReference<>();

	/**
	 * Creates a breaker with the defaults: opens at a 50 % failure rate over 1 s with at least 10 calls, for 1 s.
	 */
	public CircuitBreaker() {
		this(50, Duration.ofSeconds(1), 10, Duration.ofSeconds(1));
	}

	/**
	 * Creates a breaker on the JVM's monotonic clock.
	 * @param failureRateThreshold the failure rate, in percent (1 to 100), at or above which it opens
	 * @param window the span of time over which the failure rate is measured
	 * @param minimumCalls the fewest calls within the window for their failure rate to open it
	 * @param openDuration how long it stays open before a probe is let through
	 */
	public CircuitBreaker(int failureRateThreshold, Duration window, int minimumCalls, Duration openDuration) {
		this(failureRateThreshold, window, minimumCalls, openDuration, System::nanoTime);
	}

	/**
	 * Creates a breaker.
	 * @param failureRateThreshold the failure rate, in percent (1 to 100), at or above which it opens
	 * @param window the span of time over which the failure rate is measured
	 * @param minimumCalls the fewest calls within the window for their failure rate to open it
	 * @param openDuration how long it stays open before a probe is let through
	 * @param nanoTime a monotonic clock in nanoseconds
	 * @throws IllegalArgumentException when a value is out of range
	 */
	public CircuitBreaker(int failureRateThreshold, Duration window, int minimumCalls, Duration openDuration,
			LongSupplier nanoTime) {
		if (failureRateThreshold < 1 || failureRateThreshold > 100) {
			throw new IllegalArgumentException(
					"Failure rate threshold must be between 1 and 100 (percent), was " + failureRateThreshold);
		}
		if (window.isNegative() || window.isZero()) {
			throw new IllegalArgumentException("Window must be positive, was " + window);
		}
		if (minimumCalls < 1) {
			throw new IllegalArgumentException("Minimum calls must be at least 1, was " + minimumCalls);
		}
		if (openDuration.isNegative() || openDuration.isZero()) {
			throw new IllegalArgumentException("Open duration must be positive, was " + openDuration);
		}
		this.failureRateThreshold = failureRateThreshold;
		this.minimumCalls = minimumCalls;
		this.openNanos = openDuration.toNanos();
		this.nanoTime = nanoTime;
		this.window = new FailureWindow(window.toNanos());
		this.closedSince = nanoTime.getAsLong();
	}

	/**
	 * Whether a call may go to the backend now: always while closed; while open, one probe at a time once the open
	 * duration has passed. A caller given a ticket reports it back with exactly one of {@link #onSuccess(long)},
	 * {@link #onFailure(long, Throwable)} or {@link #onIgnored(long)}.
	 * @return the call's ticket (its start time), or {@link #NOT_PERMITTED}
	 */
	public long tryCall() {
		long now = this.nanoTime.getAsLong();
		Open current = this.open.get();
		if (current == null) {
			return now;
		}
		if (now - current.until() < 0) {
			return NOT_PERMITTED;
		}
		long probing = this.probe.get();
		if (probing != NO_PROBE && now - probing < this.openNanos) {
			return NOT_PERMITTED;
		}
		return this.probe.compareAndSet(probing, now) ? now : NOT_PERMITTED;
	}

	/**
	 * Reports a call the backend answered. While closed, it counts in the window; while open, it closes the breaker
	 * if it started after the breaker opened (a probe), and is ignored if it started before.
	 * @param ticket the call's ticket
	 */
	public void onSuccess(long ticket) {
		Open current = this.open.get();
		if (current == null) {
			if (ticket - this.closedSince >= 0) {
				this.window.record(ticket, false);
			}
			return;
		}
		if (ticket - current.since() >= 0 && this.open.compareAndSet(current, null)) {
			this.window.clear();
			this.closedSince = this.nanoTime.getAsLong();
			this.probe.set(NO_PROBE);
		}
	}

	/**
	 * Reports a request decided without a call (from a lease in hand): while closed, it counts in the window as a
	 * success; while open, it is ignored (only a probe's answer closes the breaker).
	 */
	public void onLocalSuccess() {
		if (this.open.get() == null) {
			long now = this.nanoTime.getAsLong();
			if (now - this.closedSince >= 0) {
				this.window.record(now, false);
			}
		}
	}

	/**
	 * Reports a call the backend failed (a connection failure, a timeout, an error reply). While closed, it counts in
	 * the window and opens the breaker when the window's failure rate reaches the threshold; while open, a failed
	 * probe keeps it open for another open duration, and a call that started before it opened is ignored. A failure
	 * with the very error object of the last one counted is the same call's, reported by another of its requests: it
	 * is ignored ({@link #onIgnored(long)}).
	 * @param ticket the call's ticket
	 * @param error what went wrong
	 */
	public void onFailure(long ticket, Throwable error) {
		if (this.lastCounted.getAndSet(error) == error) {
			onIgnored(ticket);
			return;
		}
		Open current = this.open.get();
		if (current == null) {
			if (ticket - this.closedSince < 0) {
				return;
			}
			this.window.record(ticket, true);
			long now = this.nanoTime.getAsLong();
			if (this.window.exceeds(now, this.minimumCalls, this.failureRateThreshold)
					&& this.open.compareAndSet(null, new Open(now, now + this.openNanos, error))) {
				this.probe.set(NO_PROBE);
			}
			return;
		}
		if (ticket - current.since() >= 0) {
			long now = this.nanoTime.getAsLong();
			if (this.open.compareAndSet(current, new Open(now, now + this.openNanos, error))) {
				this.probe.set(NO_PROBE);
			}
		}
	}

	/**
	 * Reports a call that ended without saying anything about the backend: a bug in one request's inputs, an
	 * interrupted caller, an {@link Error}. It does not count; if it was the probe, another call may probe now.
	 * @param ticket the call's ticket
	 */
	public void onIgnored(long ticket) {
		if (this.probe.get() == ticket) {
			this.probe.compareAndSet(ticket, NO_PROBE);
		}
	}

	/**
	 * Whether the breaker is open.
	 * @return whether it is open
	 */
	public boolean isOpen() {
		return this.open.get() != null;
	}

	/**
	 * The error of the failure that opened the breaker, or of the last failed probe.
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

	private record Open(long since, long until, Throwable error) {
	}

}
