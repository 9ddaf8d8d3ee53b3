package io.github.ratelimit.test;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.core.Limit;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link StartedWindow} puts a window's boundary where a test needs it, whatever the time: just before it, with the
 * whole period written still ahead, or within a span ahead, with the capacity kept and the shortest period that does.
 */
class StartedWindowTests {

	private static final long HOUR = 3_600_000_000L;

	@Test
	void aBegunWindowLastsAtLeastThePeriodWrittenFromAnyTime() {
		for (long now : times()) {
			for (String written : List.of("10/1m", "10/1h", "3/1d")) {
				Limit limit = StartedWindow.begunAt(now, written);
				Limit asWritten = Limit.parse(written);
				assertThat(limit.capacity()).isEqualTo(asWritten.capacity());
				assertThat(limit.periodMicros() % 1000).as("a whole number of milliseconds").isZero();
				assertThat(StartedWindow.end(limit, now) - now).as("%s at %d", limit, now)
					.isGreaterThanOrEqualTo(asWritten.periodMicros());
				// the shortest such period: one millisecond less leaves less than the period written
				if (limit.periodMicros() > asWritten.periodMicros()) {
					long shorter = limit.periodMicros() - 1000;
					assertThat(shorter - Math.floorMod(now, shorter)).isLessThan(asWritten.periodMicros());
				}
			}
		}
	}

	@Test
	void aWindowAlreadyBegunAtTheTimeKeepsThePeriodWritten() {
		assertThat(StartedWindow.begunAt(5 * HOUR, "10/1h")).isEqualTo(Limit.parse("10/1h"));
		assertThat(StartedWindow.begunAt(5 * HOUR + 1, "10/1h").period()).isGreaterThan(Duration.ofHours(1));
	}

	@Test
	void onlyWindowsAlignedToTheEpochAreMoved() {
		long now = 5 * HOUR + 1;
		assertThat(StartedWindow.begunAt(now, Algorithm.FIXED_WINDOW, "10/1h"))
			.isEqualTo(StartedWindow.begunAt(now, "10/1h"));
		assertThat(StartedWindow.begunAt(now, Algorithm.SLIDING_WINDOW, "10/1h"))
			.isEqualTo(StartedWindow.begunAt(now, "10/1h"));
		for (Algorithm algorithm : List.of(Algorithm.TOKEN_BUCKET, Algorithm.GCRA, Algorithm.SLIDING_LOG)) {
			assertThat(StartedWindow.begunAt(now, algorithm, "10/1h")).isEqualTo(Limit.parse("10/1h"));
		}
	}

	@Test
	void aWindowEndingWithinASpanEndsThere() {
		for (long now : times()) {
			Limit limit = StartedWindow.endingWithin(now, "500/2s", Duration.ofMillis(300), Duration.ofMillis(800));
			assertThat(limit.capacity()).isEqualTo(500);
			assertThat(limit.period()).isGreaterThanOrEqualTo(Duration.ofSeconds(2));
			assertThat(StartedWindow.end(limit, now) - now).as("%s at %d", limit, now).isBetween(300_000L, 800_000L);
		}
	}

	@Test
	void aWindowEndsAtTheNextMultipleOfItsPeriod() {
		Limit hour = Limit.parse("1/1h");
		assertThat(StartedWindow.end(hour, 5 * HOUR)).isEqualTo(6 * HOUR);
		assertThat(StartedWindow.end(hour, 6 * HOUR - 1)).isEqualTo(6 * HOUR);
		assertThat(StartedWindow.end(hour, -1)).isZero();
	}

	/** Now, boundaries of round periods and the moments around them, and times spread over the coming decades. */
	private static List<Long> times() {
		long now = ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now());
		List<Long> times = new ArrayList<>(List.of(now, 490_000 * HOUR, 490_000 * HOUR - 1, 490_000 * HOUR + 1,
				490_000 * HOUR - 1_000_000));
		SplittableRandom random = new SplittableRandom(25);
		for (int i = 0; i < 200; i++) {
			times.add(random.nextLong(now, now + 40 * 365 * 24 * HOUR));
		}
		return times;
	}

}
