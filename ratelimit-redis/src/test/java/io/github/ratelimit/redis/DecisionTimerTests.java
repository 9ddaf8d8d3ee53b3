package io.github.ratelimit.redis;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.netty.util.Timeout;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The one timer of every Lettuce call's decision timeout: a timeout fires once its delay has passed, not before; a
 * cancelled one never fires; the timer is shared while any user holds it, and closing twice leaves it once.
 */
class DecisionTimerTests {

	@Test
	void timeoutFiresAfterItsDelayAndACancelledOneNever() throws Exception {
		DecisionTimer timer = DecisionTimer.open();
		try {
			long delay = Duration.ofMillis(50).toNanos();
			long start = System.nanoTime();
			CompletableFuture<Long> fired = new CompletableFuture<>();
			timer.schedule((timeout) -> fired.complete(System.nanoTime() - start), delay);
			CompletableFuture<Boolean> cancelled = new CompletableFuture<>();
			Timeout pending = timer.schedule((timeout) -> cancelled.complete(true), delay);
			assertThat(pending.cancel()).isTrue();
			assertThat(fired.get(10, TimeUnit.SECONDS)).isGreaterThanOrEqualTo(delay);
			Thread.sleep(3 * DecisionTimer.TICK_MILLIS);
			assertThat(cancelled).isNotDone();
		}
		finally {
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
			CompletableFuture<Boolean> fired = new CompletableFuture<>();
			second.schedule((timeout) -> fired.complete(true), Duration.ofMillis(1).toNanos());
			assertThat(fired.get(10, TimeUnit.SECONDS)).isTrue();
		}
		finally {
			second.close();
		}
		DecisionTimer again = DecisionTimer.open();
		try {
			CompletableFuture<Boolean> fired = new CompletableFuture<>();
			again.schedule((timeout) -> fired.complete(true), Duration.ofMillis(1).toNanos());
			assertThat(fired.get(10, TimeUnit.SECONDS)).as("a timer opened after every user left").isTrue();
		}
		finally {
			again.close();
		}
	}

}
