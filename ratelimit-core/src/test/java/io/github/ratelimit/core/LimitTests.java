package io.github.ratelimit.core;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class LimitTests {

	@Test
	void parsesEveryUnit() {
		assertThat(Limit.parse("100/1m")).isEqualTo(Limit.of(100, Duration.ofMinutes(1)));
		assertThat(Limit.parse("5/10s")).isEqualTo(Limit.of(5, Duration.ofSeconds(10)));
		assertThat(Limit.parse("50000/1d")).isEqualTo(Limit.of(50000, Duration.ofDays(1)));
		assertThat(Limit.parse("3/250ms")).isEqualTo(Limit.of(3, Duration.ofMillis(250)));
		assertThat(Limit.parse("7/2h")).isEqualTo(Limit.of(7, Duration.ofHours(2)));
		assertThat(Limit.parse(" 10 / m ")).isEqualTo(Limit.of(10, Duration.ofMinutes(1)));
	}

	@Test
	void printsCanonically() {
		assertThat(Limit.parse("100/60s")).hasToString("100/1m");
		assertThat(Limit.parse("1/1500ms")).hasToString("1/1500ms");
		assertThat(Limit.parse("1/24h")).hasToString("1/1d");
	}

	@Test
	void periodTextIsTheCanonicalPeriod() {
		assertThat(Limit.parse("100/60s").periodText()).isEqualTo("1m");
		assertThat(Limit.parse("1/1500ms").periodText()).isEqualTo("1500ms");
		assertThat(Limit.parse("5/10s").periodText()).isEqualTo("10s");
		assertThat(Limit.of(1, Duration.ofNanos(1_000_500_000)).periodText()).isEqualTo("1000500us");
	}

	@ParameterizedTest
	@ValueSource(strings = { "lots", "", "100", "/1m", "100/", "100/1w", "-1/1m", "1.5/1m", "100/1 m s", "100/-1s" })
	void refusesUnparsableLimitsNamingTheSyntax(String text) {
		assertThatIllegalArgumentException().isThrownBy(() -> Limit.parse(text))
			.withMessageContaining("Invalid limit '" + text + "'")
			.withMessageContaining("\"100/1m\"");
	}

	@Test
	void refusesZeroCapacityAndPeriod() {
		assertThatIllegalArgumentException().isThrownBy(() -> Limit.parse("0/1m"))
			.withMessage("Limit capacity must be at least 1, was 0");
		assertThatIllegalArgumentException().isThrownBy(() -> Limit.parse("10/0s"))
			.withMessageContaining("Limit period must be at least 1ms");
		assertThatIllegalArgumentException().isThrownBy(() -> Limit.of(-5, Duration.ofSeconds(1)))
			.withMessage("Limit capacity must be at least 1, was -5");
		assertThatIllegalArgumentException().isThrownBy(() -> Limit.of(5, Duration.ofSeconds(-1)))
			.withMessageContaining("at least 1ms");
		assertThatIllegalArgumentException().isThrownBy(() -> Limit.of(5, Duration.ofNanos(1_000_500)))
			.withMessageContaining("whole number of microseconds");
		assertThatIllegalArgumentException().isThrownBy(() -> Limit.parse(null)).withMessageContaining("null");
	}

	@Test
	void refusesNumbersTooLarge() {
		assertThatIllegalArgumentException().isThrownBy(() -> Limit.parse("99999999999999999999/1s"))
			.withMessageContaining("too large");
		assertThatIllegalArgumentException().isThrownBy(() -> Limit.parse("1/999999999999999d"))
			.withMessageContaining("too large");
	}

	@Test
	void refusesPeriodsLongerThanAThousandDays() {
		assertThat(Limit.parse("1/1000d").period()).isEqualTo(java.time.Duration.ofDays(1000));
		assertThatIllegalArgumentException().isThrownBy(() -> Limit.parse("1/1001d"))
			.withMessage("Limit period must be at most 1000d, was PT24024H");
	}

	@Test
	void periodInSecondsRoundsUp() {
		assertThat(Limit.parse("1/1500ms").periodSeconds()).isEqualTo(2);
		assertThat(Limit.parse("1/1ms").periodSeconds()).isEqualTo(1);
		assertThat(Limit.parse("1/1m").periodSeconds()).isEqualTo(60);
	}

}
