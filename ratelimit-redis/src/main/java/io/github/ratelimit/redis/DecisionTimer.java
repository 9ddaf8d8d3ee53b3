package io.github.ratelimit.redis;

import java.util.concurrent.TimeUnit;

import io.netty.util.HashedWheelTimer;
import io.netty.util.Timeout;
import io.netty.util.TimerTask;
import org.jspecify.annotations.Nullable;

/**
 * The decision timeout of every call the Lettuce executors send: one Netty {@link HashedWheelTimer} for the whole
 * JVM, shared by every executor while at least one is open (one daemon thread, {@code ratelimit-timeout}). Adding a
 * timeout and cancelling it (every call that Redis answers in time) are a few lock-free queue operations, with no
 * task in a scheduler's delay queue per call; a timeout fires on the first tick of the wheel ({@value #TICK_MILLIS}
 * ms) at or after its deadline, on the timer's thread.
 */
final class DecisionTimer {

	/** How often the wheel turns, and how late past its deadline a timeout may fire. */
	static final long TICK_MILLIS = 10;

	private static final Object lock = new Object();

	private static @Nullable HashedWheelTimer shared;

	private static int users;

	private final HashedWheelTimer timer;

	private boolean closed;

	private DecisionTimer(HashedWheelTimer timer) {
		this.timer = timer;
	}

	/**
	 * Joins the shared timer, starting it when no one uses it, on the calling thread (so that no call, perhaps on an
	 * event loop, ever waits for it to start).
	 * @return the timer, until {@link #close()}
	 */
	static DecisionTimer open() {
		synchronized (lock) {
			HashedWheelTimer timer = shared;
			if (timer == null) {
				timer = new HashedWheelTimer((task) -> {
					Thread thread = new Thread(task, "ratelimit-timeout");
					thread.setDaemon(true);
					return thread;
				}, TICK_MILLIS, TimeUnit.MILLISECONDS, 512, false);
				timer.start();
				shared = timer;
			}
			users++;
			return new DecisionTimer(timer);
		}
	}

	/**
	 * Runs a task after a delay, unless cancelled.
	 * @param task the task
	 * @param nanos the delay
	 * @return the pending timeout
	 */
	Timeout schedule(TimerTask task, long nanos) {
		return this.timer.newTimeout(task, nanos, TimeUnit.NANOSECONDS);
	}

	/**
	 * Leaves the shared timer, stopping it (and its thread) when no one else uses it; calls still pending then never
	 * time out, so close only once nothing is sent any more.
	 */
	void close() {
		HashedWheelTimer stopped = null;
		synchronized (lock) {
			if (this.closed) {
				return;
			}
			this.closed = true;
			if (--users == 0 && shared == this.timer) {
				stopped = this.timer;
				shared = null;
			}
		}
		if (stopped != null) {
			stopped.stop();
		}
	}

}
