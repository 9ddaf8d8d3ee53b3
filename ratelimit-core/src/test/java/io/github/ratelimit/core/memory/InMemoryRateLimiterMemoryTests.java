package io.github.ratelimit.core.memory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.core.Policy;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.test.ManualClock;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The in-memory backend's memory is bounded whatever keys clients send, and decisions stay exact under the bound.
 */
class InMemoryRateLimiterMemoryTests {

	private final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));

	@Test
	void aFloodOfAMillionDistinctClientsStaysWithinTheMaximum() {
		InMemoryRateLimiterBackend backend = new InMemoryRateLimiterBackend(this.clock, "ratelimit", 10_000);
		RateLimiter limiter = backend.create(Policy.of("p", Algorithm.TOKEN_BUCKET, "5/1h"));
		int[] admittedRegulars = new int[10];
		for (int i = 0; i < 1_000_000; i++) {
			limiter.tryAcquire("rotated-" + i);
			if (i % 1000 == 0) {
				for (int regular = 0; regular < admittedRegulars.length; regular++) {
					admittedRegulars[regular] += limiter.tryAcquire("regular-" + regular).allowed() ? 1 : 0;
				}
			}
		}
		assertThat(backend.size()).isLessThanOrEqualTo(10_000);
		assertThat(backend.evictions()).isGreaterThanOrEqualTo(1_000_000 - 10_000);
		// the clients who keep coming back keep their state: the flood evicts the one-off keys
		assertThat(admittedRegulars).containsOnly(5);
	}

	@Test
	void underTheMaximumNoStateIsEvictedAndDecisionsAreExact() {
		InMemoryRateLimiterBackend backend = new InMemoryRateLimiterBackend(this.clock, "ratelimit", 1000);
		RateLimiter limiter = backend.create(Policy.of("p", Algorithm.TOKEN_BUCKET, "5/1h"));
		int admitted = 0;
		for (int round = 0; round < 6; round++) {
			for (int client = 0; client < 1000; client++) {
				admitted += limiter.tryAcquire("client-" + client).allowed() ? 1 : 0;
			}
		}
		assertThat(admitted).isEqualTo(5000);
		assertThat(backend.size()).isEqualTo(1000);
		assertThat(backend.evictions()).isZero();
	}

	@Test
	void stateExpiresWhenItEqualsAFreshOneWithoutARequestToSweepIt() {
		InMemoryRateLimiterBackend backend = new InMemoryRateLimiterBackend(this.clock, "ratelimit", 1000);
		RateLimiter limiter = backend.create(Policy.of("p", Algorithm.TOKEN_BUCKET, "5/10s"));
		for (int client = 0; client < 1000; client++) {
			limiter.tryAcquire("client-" + client);
		}
		this.clock.advance(Duration.ofSeconds(3));
		limiter.tryAcquire("late", 5);
		this.clock.advance(Duration.ofSeconds(8));
		// only the late client's state still matters: the room of the others is free again, not taken by evictions
		assertThat(backend.size()).isEqualTo(1);
		assertThat(backend.evictions()).isZero();
	}

	@Test
	void theFirstEvictionIsLoggedAsAWarningOnce() {
		List<LogRecord> records = new CopyOnWriteArrayList<>();
		Handler handler = new Handler() {

			@Override
			public void publish(LogRecord logRecord) {
				records.add(logRecord);
			}

			@Override
			public void flush() {
			}

			@Override
			public void close() {
			}

		};
		// System.Logger goes to java.util.logging when nothing else is installed, as in this module's tests
		Logger logger = Logger.getLogger(InMemoryRateLimiterBackend.class.getName());
		logger.addHandler(handler);
		try {
			InMemoryRateLimiterBackend backend = new InMemoryRateLimiterBackend(this.clock, "ratelimit", 10);
			RateLimiter limiter = backend.create(Policy.of("p", Algorithm.TOKEN_BUCKET, "5/1h"));
			for (int client = 0; client < 10; client++) {
				limiter.tryAcquire("client-" + client);
			}
			assertThat(backend.size()).isEqualTo(10);
			assertThat(records).as("nothing evicted yet").isEmpty();
			for (int client = 10; client < 100; client++) {
				limiter.tryAcquire("client-" + client);
			}
			assertThat(backend.size()).isLessThanOrEqualTo(10);
			assertThat(backend.evictions()).isGreaterThanOrEqualTo(90);
			assertThat(records).singleElement().satisfies((logRecord) -> {
				assertThat(logRecord.getLevel()).isEqualTo(Level.WARNING);
				assertThat(logRecord.getMessage()).contains("maximum of 10 clients", "logged once");
			});
		}
		finally {
			logger.removeHandler(handler);
		}
	}

	@Test
	void rejectsAMaximumBelowOne() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new InMemoryRateLimiterBackend(Clock.systemUTC(), "ratelimit", 0))
			.withMessageContaining("at least 1");
	}

}
