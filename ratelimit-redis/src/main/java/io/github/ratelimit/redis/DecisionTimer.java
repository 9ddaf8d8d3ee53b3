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
 * ms) at or after its deadline, on the timer's thread, counting the time the process ran ({@link #schedule}).
 */
final class DecisionTimer {

	/** How often the wheel turns, and how late past its deadline a timeout may fire. */
	static final long TICK_MILLIS = 10;

	/**
	 * How late past its deadline a timeout fires, at most, while the process runs: a tick, and a busy machine's delay
	 * in scheduling the timer's thread. Later, the process was paused or starved meanwhile (a GC pause, CPU
	 * throttling), and its other threads may not have read replies that are there.
	 */
	static final long PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(5 * TICK_MILLIS);

	/** The grace a call gets, from when its timeout fires, for a reply that is just arriving. */
	static final long GRACE_NANOS = TimeUnit.MILLISECONDS.toNanos(2 * TICK_MILLIS);

	/** The most times a call's timeout is extended. */
	static final int GRACES = 2;

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
	 * Times a call out after a delay of the time the process ran, unless it is answered first. When the delay is over,
	 * a call that is not answered yet gets {@link #GRACE_NANOS} more for a reply that is just arriving; when the timer
	 * fires more than {@link #PAUSE_NANOS} late (the process was paused or starved, and a reply may be waiting unread
	 * in the socket while this thread and the client's race), it gets its whole delay again from then. It is timed out
	 * after {@value #GRACES} such extensions at most.
	 * @param call the call
	 * @param nanos the delay
	 * @return the pending timeout
	 */
	Pending schedule(Timed call, long nanos) {
		Pending pending = new Pending(call, nanos);
		pending.timeout = this.timer.newTimeout(pending, nanos, TimeUnit.NANOSECONDS);
		return pending;
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

	/**
	 * A call that can be timed out.
	 */
	interface Timed {

		/**
		 * Whether the call is answered (or failed) already.
		 * @return whether it is done
		 */
		boolean isDone();

		/**
		 * Times the call out.
		 */
		void timeOut();

	}

	/**
	 * A call's timeout, until it fires for good or is cancelled; extended on the timer's thread only.
	 */
	static final class Pending implements TimerTask {

		private final Timed call;

		private final long nanos;

		private volatile @Nullable Timeout timeout;

		private long due;

		private int graces;

		Pending(Timed call, long nanos) {
			this.call = call;
			this.nanos = nanos;
			this.due = System.nanoTime() + nanos;
		}

		@Override
		public void run(Timeout fired) {
			if (this.call.isDone()) {
				return;
			}
			long now = System.nanoTime();
			boolean paused = now - this.due > PAUSE_NANOS;
			if (this.graces < GRACES && (this.graces == 0 || paused)) {
				this.graces++;
				long grace = paused ? this.nanos : GRACE_NANOS;
				this.due = now + grace;
				this.timeout = fired.timer().newTimeout(this, grace, TimeUnit.NANOSECONDS);
				return;
			}
			this.call.timeOut();
		}

		/**
		 * Cancels the timeout, once the call is answered.
		 */
		void cancel() {
			Timeout pending = this.timeout;
			if (pending != null) {
				pending.cancel();
			}
		}

	}

}
