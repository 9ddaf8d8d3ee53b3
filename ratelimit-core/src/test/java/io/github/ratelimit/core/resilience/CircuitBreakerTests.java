package io.github.ratelimit.core.resilience;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class CircuitBreakerTests {


	private final AtomicLong nanos = new AtomicLong(5_000_000_000L);

	private final CircuitBreaker breaker = new CircuitBreaker(50, Duration.ofSeconds(1), 10, Duration.ofSeconds(1),
			this.nanos::get);

	@Test
	void closedBreakerLetsEveryCallThrough() {
		assertThat(this.breaker.tryCall()).isNotEqualTo(CircuitBreaker.NOT_PERMITTED);
		assertThat(this.breaker.tryCall()).isNotEqualTo(CircuitBreaker.NOT_PERMITTED);
		assertThat(this.breaker.isOpen()).isFalse();
		assertThat(this.breaker.lastError()).isNull();
	}

	@Test
	void retryAfterIsTheTimeUntilTheNextProbeAndAtLeastASecond() {
		CircuitBreaker breaker = new CircuitBreaker(50, Duration.ofSeconds(1), 1, Duration.ofSeconds(5),
				this.nanos::get);
		assertThat(breaker.retryAfter()).as("closed").isEqualTo(Duration.ofSeconds(1));
		breaker.onFailure(breaker.tryCall(), down());
		assertThat(breaker.isOpen()).isTrue();
		assertThat(breaker.retryAfter()).isEqualTo(Duration.ofSeconds(5));
		advance(Duration.ofMillis(3500));
		assertThat(breaker.retryAfter()).isEqualTo(Duration.ofMillis(1500));
		advance(Duration.ofMillis(1000));
		assertThat(breaker.retryAfter()).isEqualTo(Duration.ofSeconds(1));
	}

	@Test
	void oneFailureDoesNotOpenIt() {
		this.breaker.onFailure(this.breaker.tryCall(), down());
		assertThat(this.breaker.isOpen()).isFalse();
	}

	@Test
	void failuresBelowTheMinimumCallsDoNotOpenIt() {
		failures(9);
		assertThat(this.breaker.isOpen()).isFalse();
		failures(1);
		assertThat(this.breaker.isOpen()).isTrue();
		assertThat(this.breaker.lastError()).hasMessage("down");
	}

	@Test
	void opensWhenTheFailureRateReachesTheThreshold() {
		successes(10);
		failures(9);
		assertThat(this.breaker.isOpen()).as("9 of 19 failed: below 50 %").isFalse();
		failures(1);
		assertThat(this.breaker.isOpen()).as("10 of 20 failed: 50 %").isTrue();
	}

	@Test
	void callsOlderThanTheWindowNoLongerCount() {
		successes(10);
		failures(9);
		advance(Duration.ofMillis(1100));
		// the 19 calls above have left the window: 1 failure of 1 call is below the minimum
		failures(1);
		assertThat(this.breaker.isOpen()).isFalse();
		failures(8);
		assertThat(this.breaker.isOpen()).isFalse();
		failures(1);
		assertThat(this.breaker.isOpen()).isTrue();
	}

	@Test
	void theWindowSlidesBucketByBucket() {
		failures(5);
		advance(Duration.ofMillis(500));
		successes(5);
		advance(Duration.ofMillis(600));
		// the 5 failures left the window 1.1 s after them; the 5 successes are in it
		failures(5);
		assertThat(this.breaker.isOpen()).as("5 of 10 failed, the first 5 failures forgotten").isTrue();
	}

	@Test
	void aStallThatFailsTheCallsInFlightUnderSteadyLoadDoesNotOpenIt() {
		// 8 threads, each deciding every 2 ms: a 200 ms stall fails each thread's call in flight, then each of its
		// calls until the stall ends, every 100 ms timeout: 3 calls per thread
		for (int ms = 0; ms < 1000; ms += 2) {
			boolean stalled = ms >= 400 && ms < 600 && ms % 100 == 0;
			for (int thread = 0; thread < 8; thread++) {
				long ticket = this.breaker.tryCall();
				if (stalled) {
					this.breaker.onFailure(ticket, down());
				}
				else {
					this.breaker.onSuccess(ticket);
				}
			}
			advance(Duration.ofMillis(2));
		}
		assertThat(this.breaker.isOpen()).isFalse();
	}

	@Test
	void whileOpenCallsAreSkippedUntilTheOpenDurationThenOneProbes() {
		open();
		assertThat(this.breaker.tryCall()).isEqualTo(CircuitBreaker.NOT_PERMITTED);
		assertThat(this.breaker.retryAfter()).isEqualTo(Duration.ofSeconds(1));
		advance(Duration.ofSeconds(1));
		long probe = this.breaker.tryCall();
		assertThat(probe).as("the probe").isNotEqualTo(CircuitBreaker.NOT_PERMITTED);
		assertThat(this.breaker.tryCall()).as("others while it probes").isEqualTo(CircuitBreaker.NOT_PERMITTED);
		this.breaker.onFailure(probe, down());
		assertThat(this.breaker.isOpen()).isTrue();
		assertThat(this.breaker.tryCall()).as("a failed probe opens it for another second")
			.isEqualTo(CircuitBreaker.NOT_PERMITTED);
		advance(Duration.ofSeconds(1));
		long second = this.breaker.tryCall();
		this.breaker.onSuccess(second);
		assertThat(this.breaker.isOpen()).isFalse();
		assertThat(this.breaker.tryCall()).isNotEqualTo(CircuitBreaker.NOT_PERMITTED);
	}

	@Test
	void successOfACallStartedBeforeItOpenedDoesNotCloseIt() {
		long inFlight = this.breaker.tryCall();
		advance(Duration.ofMillis(1));
		open();
		this.breaker.onSuccess(inFlight);
		assertThat(this.breaker.isOpen()).isTrue();
		advance(Duration.ofSeconds(1));
		long probe = this.breaker.tryCall();
		this.breaker.onSuccess(inFlight);
		assertThat(this.breaker.isOpen()).as("even once a probe is under way").isTrue();
		this.breaker.onSuccess(probe);
		assertThat(this.breaker.isOpen()).isFalse();
	}

	@Test
	void failureOfACallStartedBeforeItOpenedDoesNotExtendIt() {
		long inFlight = this.breaker.tryCall();
		advance(Duration.ofMillis(1));
		open();
		advance(Duration.ofMillis(999));
		this.breaker.onFailure(inFlight, down());
		advance(Duration.ofMillis(1));
		assertThat(this.breaker.tryCall()).isNotEqualTo(CircuitBreaker.NOT_PERMITTED);
	}

	@Test
	void failuresOfCallsStartedBeforeItClosedDoNotCount() {
		long[] inFlight = new long[10];
		for (int i = 0; i < inFlight.length; i++) {
			inFlight[i] = this.breaker.tryCall();
		}
		advance(Duration.ofMillis(1));
		open();
		advance(Duration.ofSeconds(1));
		this.breaker.onSuccess(this.breaker.tryCall());
		for (long ticket : inFlight) {
			this.breaker.onFailure(ticket, down());
		}
		assertThat(this.breaker.isOpen()).isFalse();
	}

	@Test
	void ignoredCallsDoNotCount() {
		for (int i = 0; i < 20; i++) {
			this.breaker.onIgnored(this.breaker.tryCall());
		}
		failures(9);
		assertThat(this.breaker.isOpen()).isFalse();
	}

	@Test
	void aProbeThatEndsWithoutAnswerFreesTheSlot() {
		open();
		advance(Duration.ofSeconds(1));
		long probe = this.breaker.tryCall();
		assertThat(this.breaker.tryCall()).isEqualTo(CircuitBreaker.NOT_PERMITTED);
		this.breaker.onIgnored(probe);
		assertThat(this.breaker.tryCall()).as("the next probe").isNotEqualTo(CircuitBreaker.NOT_PERMITTED);
	}

	@Test
	void aProbeThatNeverReportsLosesTheSlotAfterTheOpenDuration() {
		open();
		advance(Duration.ofSeconds(1));
		assertThat(this.breaker.tryCall()).isNotEqualTo(CircuitBreaker.NOT_PERMITTED);
		advance(Duration.ofMillis(999));
		assertThat(this.breaker.tryCall()).isEqualTo(CircuitBreaker.NOT_PERMITTED);
		advance(Duration.ofMillis(1));
		long next = this.breaker.tryCall();
		assertThat(next).isNotEqualTo(CircuitBreaker.NOT_PERMITTED);
		this.breaker.onSuccess(next);
		assertThat(this.breaker.isOpen()).isFalse();
	}

	/**
	 * The requests that waited for one call (a lease's renewal) all fail with its error: one failed call. Before,
	 * one slow renewal with ten waiters was ten failures, and opened the breaker for every policy.
	 */
	@Test
	void theFailuresOfOneCallsRequestsCountOnce() {
		successes(2);
		IllegalStateException renewalFailed = down();
		for (int waiter = 0; waiter < 10; waiter++) {
			this.breaker.onFailure(this.breaker.tryCall(), renewalFailed);
		}
		assertThat(this.breaker.isOpen()).as("1 failure of 3 calls").isFalse();
		failures(1);
		assertThat(this.breaker.isOpen()).as("2 failures of 4 calls, but below the minimum of 10 calls").isFalse();
		failures(8);
		assertThat(this.breaker.isOpen()).as("10 failures of 12 calls").isTrue();
	}

	/**
	 * Requests decided from a lease in hand are successes of the window: with leasing, Redis calls are few, and a
	 * failure or two among them are not most of what the backend served.
	 */
	@Test
	void localSuccessesCountInTheWindow() {
		for (int i = 0; i < 10; i++) {
			this.breaker.onLocalSuccess();
		}
		failures(9);
		assertThat(this.breaker.isOpen()).as("9 failures of 19").isFalse();
		failures(1);
		assertThat(this.breaker.isOpen()).as("10 failures of 20").isTrue();
		this.breaker.onLocalSuccess();
		assertThat(this.breaker.isOpen()).as("only a probe closes it, not a local decision").isTrue();
	}

	@Test
	void settingsOutOfRangeAreRefused() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new CircuitBreaker(0, Duration.ofSeconds(1), 10, Duration.ofSeconds(1)))
			.withMessageContaining("between 1 and 100");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new CircuitBreaker(101, Duration.ofSeconds(1), 10, Duration.ofSeconds(1)));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new CircuitBreaker(50, Duration.ZERO, 10, Duration.ofSeconds(1)))
			.withMessageContaining("Window");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new CircuitBreaker(50, Duration.ofSeconds(1), 0, Duration.ofSeconds(1)))
			.withMessageContaining("Minimum calls");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new CircuitBreaker(50, Duration.ofSeconds(1), 10, Duration.ofMillis(-1)))
			.withMessageContaining("Open duration");
	}

	private void open() {
		failures(10);
		assertThat(this.breaker.isOpen()).isTrue();
	}

	private void failures(int count) {
		for (int i = 0; i < count; i++) {
			this.breaker.onFailure(this.breaker.tryCall(), down());
		}
	}

	private void successes(int count) {
		for (int i = 0; i < count; i++) {
			this.breaker.onSuccess(this.breaker.tryCall());
		}
	}

	private void advance(Duration duration) {
		this.nanos.addAndGet(duration.toNanos());
	}

	private static IllegalStateException down() {
		return new IllegalStateException("down");
	}

}
