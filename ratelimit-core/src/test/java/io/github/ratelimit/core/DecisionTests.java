package io.github.ratelimit.core;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class DecisionTests {

	private final Limit minute = Limit.parse("10/1m");

	private final Limit day = Limit.parse("100/1d");

	@Test
	void allowedDecisionDescribesTheLimitWithFewestRemaining() {
		Decision decision = Decision.of(List.of(new LimitDecision(this.minute, true, 7, 0, 18_000_000, 0),
				new LimitDecision(this.day, true, 3, 0, 500_000_000, 0)), 1);
		assertThat(decision.allowed()).isTrue();
		assertThat(decision.limit()).isEqualTo(this.day);
		assertThat(decision.remaining()).isEqualTo(3);
		assertThat(decision.retryAfter()).isZero();
		assertThat(decision.resetAfter()).isEqualTo(Duration.ofSeconds(500));
	}

	@Test
	void deniedDecisionDescribesTheDenyingLimitWithTheLongestWait() {
		Decision decision = Decision.of(List.of(new LimitDecision(this.minute, false, 0, 6_000_000, 60_000_000, 0),
				new LimitDecision(this.day, false, 0, 864_000_000, 86_400_000_000L, 0),
				new LimitDecision(Limit.parse("1000/30d"), true, 900, 0, 1, 1)), 1);
		assertThat(decision.allowed()).isFalse();
		assertThat(decision.limit()).isEqualTo(this.day);
		assertThat(decision.retryAfter()).isEqualTo(Duration.ofSeconds(864));
		assertThat(decision.satisfiable()).isTrue();
	}

	@Test
	void requestAboveACapacityIsNeverSatisfiable() {
		Decision decision = Decision.of(List.of(new LimitDecision(this.minute, false, 10, 1, 0, 0),
				new LimitDecision(this.day, true, 100, 0, 0, 0)), 11);
		assertThat(decision.allowed()).isFalse();
		assertThat(decision.satisfiable()).isFalse();
		assertThat(decision.limit()).isEqualTo(this.minute);
		assertThat(decision.retryAfter()).isEqualTo(Duration.ofMinutes(1));
	}

	@Test
	void retryAfterSecondsRoundsUpToAtLeastOne() {
		assertThat(denied(1).retryAfterSeconds()).isEqualTo(1);
		assertThat(denied(1_000_000).retryAfterSeconds()).isEqualTo(1);
		assertThat(denied(1_000_001).retryAfterSeconds()).isEqualTo(2);
		assertThat(Decision.of(List.of(new LimitDecision(this.minute, true, 5, 0, 2_500_000, 0)), 1).resetAfterSeconds())
			.isEqualTo(3);
	}

	private Decision denied(long retryMicros) {
		return Decision.of(List.of(new LimitDecision(this.minute, false, 0, retryMicros, retryMicros, retryMicros)), 1);
	}

}
