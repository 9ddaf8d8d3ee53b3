package io.github.ratelimit.redis;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The one timer of every Lettuce call's decision timeout: a call times out once its delay and a grace have passed,
 * not before; a late timer (the process paused) gives it its whole delay again; a cancelled one never times out; the
 * timer is shared while any user holds it, and closing twice leaves it once.
 */
class DecisionTimerTests {

	@Test
	void aCallTimesOutAfterItsDelayAndAGraceAndACancelledOneNever() throws Exception {
		DecisionTimer timer = DecisionTimer.open();
		try {
			long delay = Duration.ofMillis(50).toNanos();
			TimedCall call = new TimedCall();
			timer.schedule(call, delay);
			TimedCall cancelled = new TimedCall();
			timer.schedule(cancelled, delay).cancel();
			assertThat(call.get(10, TimeUnit.SECONDS) - call.start)
				.isGreaterThanOrEqualTo(delay + DecisionTimer.GRACE_NANOS);
			Thread.sleep(3 * DecisionTimer.TICK_MILLIS);
			assertThat(cancelled).isNotDone();
		}
		finally {
			timer.close();
		}
	}

	@Test
	void aCallWhoseTimeoutFiresLateGetsItsWholeDelayAgain() throws Exception {
		DecisionTimer timer = DecisionTimer.open();
		CountDownLatch resume = new CountDownLatch(1);
		try {
			long delay = Duration.ofMillis(50).toNanos();
			TimedCall call = new TimedCall();
			timer.schedule(call, delay);
			// holds the timer's thread, as a paused process does, until the call's delay is long over
			timer.schedule(new TimedCall() {

				@Override
				public boolean isDone() {
					try {
						resume.await();
					}
					catch (InterruptedException ex) {
						Thread.currentThread().interrupt();
					}
					return true;
				}

			}, 1);
			Thread.sleep(4 * TimeUnit.NANOSECONDS.toMillis(delay));
			long resumed = System.nanoTime();
			resume.countDown();
			assertThat(call.get(10, TimeUnit.SECONDS) - resumed).isGreaterThanOrEqualTo(delay);
		}
		finally {
			resume.countDown();
			timer.close();
		}
	}

	@Test
	void timerOutlivesOneOfItsUsersAndAUserClosedTwice() throws Exception {
		DecisionTimer first = DecisionTimer.open();
		DecisionTimer second = DecisionTimer.open();
		first.close();
		first.close();
		try {
			TimedCall call = new TimedCall();
			second.schedule(call, Duration.ofMillis(1).toNanos());
			assertThat(call.get(10, TimeUnit.SECONDS)).isPositive();
		}
		finally {
			second.close();
		}
		DecisionTimer again = DecisionTimer.open();
		try {
			TimedCall call = new TimedCall();
			again.schedule(call, Duration.ofMillis(1).toNanos());
			assertThat(call.get(10, TimeUnit.SECONDS)).as("a timer opened after every user left").isPositive();
		}
		finally {
			again.close();
		}
	}

	/**
	 * A call that completes with the {@link System#nanoTime()} of its timeout.
	 */
	private static class TimedCall extends CompletableFuture<Long> implements DecisionTimer.Timed {

		final long start = System.nanoTime();

		@Override
		public void timeOut() {
			complete(Math.max(1, System.nanoTime()));
		}

	}

}
