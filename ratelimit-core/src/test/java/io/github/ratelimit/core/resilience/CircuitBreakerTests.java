package io.github.ratelimit.core.resilience;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class CircuitBreakerTests {

	private final AtomicLong nanos = new AtomicLong(5_000_000_000L);

	private final CircuitBreaker breaker = new CircuitBreaker(Duration.ofSeconds(1), this.nanos::get);

	@Test
	void closedBreakerLetsEveryCallThrough() {
		assertThat(this.breaker.tryCall()).isTrue();
		assertThat(this.breaker.tryCall()).isTrue();
		assertThat(this.breaker.isOpen()).isFalse();
	}

	@Test
	void afterAFailureCallsAreSkippedForTheIntervalThenOneProbes() {
		IllegalStateException error = new IllegalStateException("down");
		this.breaker.onFailure(error);
		assertThat(this.breaker.isOpen()).isTrue();
		assertThat(this.breaker.lastError()).isSameAs(error);
		assertThat(this.breaker.tryCall()).isFalse();
		assertThat(this.breaker.retryAfter()).isEqualTo(Duration.ofSeconds(1));
		advance(Duration.ofSeconds(1));
		assertThat(this.breaker.tryCall()).as("the probe").isTrue();
		assertThat(this.breaker.tryCall()).as("others while it probes").isFalse();
		this.breaker.onFailure(error);
		assertThat(this.breaker.tryCall()).isFalse();
		advance(Duration.ofSeconds(1));
		assertThat(this.breaker.tryCall()).isTrue();
		this.breaker.onSuccess();
		assertThat(this.breaker.isOpen()).isFalse();
		assertThat(this.breaker.tryCall()).isTrue();
	}

	@Test
	void recoveryListenersRunWhenTheBackendAnswersAgain() {
		AtomicInteger recoveries = new AtomicInteger();
		this.breaker.whenRecovered(recoveries::incrementAndGet);
		this.breaker.onSuccess();
		assertThat(recoveries).hasValue(0);
		this.breaker.onFailure(new IllegalStateException("down"));
		this.breaker.onSuccess();
		this.breaker.onSuccess();
		assertThat(recoveries).hasValue(1);
	}

	private void advance(Duration duration) {
		this.nanos.addAndGet(duration.toNanos());
	}

}
