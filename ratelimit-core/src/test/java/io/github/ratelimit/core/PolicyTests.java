package io.github.ratelimit.core;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class PolicyTests {

	@Test
	void refusesInvalidPolicies() {
		assertThatIllegalArgumentException().isThrownBy(() -> Policy.of(" ", Algorithm.GCRA, "1/1s"))
			.withMessageContaining("name must not be blank");
		assertThatIllegalArgumentException().isThrownBy(() -> Policy.of("a{b}", Algorithm.GCRA, "1/1s"))
			.withMessageContaining("must not contain '{' or '}'");
		assertThatIllegalArgumentException().isThrownBy(() -> Policy.of("orders", Algorithm.GCRA))
			.withMessageContaining("Policy 'orders' needs at least one limit");
		assertThatIllegalArgumentException().isThrownBy(() -> new Policy("orders", null, List.of(Limit.parse("1/1s"))))
			.withMessageContaining("needs an algorithm");
	}

	@Test
	void slidingWindowRefusesLimitsWhoseCapacityTimesPeriodIsNotExact() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> Policy.of("orders", Algorithm.SLIDING_WINDOW, "10/1m", "1000000000/1d"))
			.withMessage("Limit 1000000000/1d of policy 'orders' is too large for sliding-window: capacity x period in "
					+ "microseconds must be at most 2^53 = 9007199254740992; use a smaller capacity or a shorter period, "
					+ "or token-bucket or gcra");
		assertThat(Policy.of("orders", Algorithm.SLIDING_WINDOW, "104249/1d").limits()).hasSize(1);
		assertThatIllegalArgumentException().isThrownBy(() -> Policy.of("orders", Algorithm.SLIDING_WINDOW, "104250/1d"));
		assertThat(Policy.of("orders", Algorithm.GCRA, "1000000000/1d").limits()).hasSize(1);
	}

	@Test
	void slidingLogRefusesCapacitiesAboveItsBoundNamingTheAlternatives() {
		assertThat(Policy.of("orders", Algorithm.SLIDING_LOG, "500/1h").limits()).hasSize(1);
		assertThatIllegalArgumentException().isThrownBy(() -> Policy.of("orders", Algorithm.SLIDING_LOG, "501/1h"))
			.withMessage("Limit 501/1h of policy 'orders' is too large for sliding-log: it logs every permit, so its "
					+ "capacity must be at most 500 to keep one decision near a millisecond inside Redis; use "
					+ "sliding-window (approximate, constant memory) or gcra (exact, one small key) instead");
		assertThat(Policy.of("orders", Algorithm.SLIDING_WINDOW, "100000/1h").limits()).hasSize(1);
	}

	@Test
	void dividedPoliciesKeepEveryShareExact() {
		Policy policy = Policy.of("big", Algorithm.TOKEN_BUCKET, "10000000/1d", "10/1s");
		assertThatIllegalArgumentException().isThrownBy(() -> Limit.of(3_333_333, Duration.ofDays(1)));
		assertThat(policy.dividedBy(3).limits()).containsExactly(Limit.of(3_333_312, Duration.ofDays(1)),
				Limit.of(3, Duration.ofSeconds(1)));
		assertThat(policy.dividedBy(1).limits()).isEqualTo(policy.limits());
		assertThat(Policy.of("small", Algorithm.GCRA, "5/1h").dividedBy(10).limits())
			.containsExactly(Limit.of(1, Duration.ofHours(1)));
		assertThatIllegalArgumentException().isThrownBy(() -> policy.dividedBy(0));
	}

	@Test
	void fingerprintChangesWithLimitsAndAlgorithmOnly() {
		Policy policy = Policy.of("orders", Algorithm.TOKEN_BUCKET, "10/1m", "100/1h");
		assertThat(policy.fingerprint()).hasSize(8)
			.isEqualTo(Policy.of("renamed", Algorithm.TOKEN_BUCKET, "10/60s", "100/1h").fingerprint())
			.isNotEqualTo(Policy.of("orders", Algorithm.TOKEN_BUCKET, "11/1m", "100/1h").fingerprint())
			.isNotEqualTo(Policy.of("orders", Algorithm.GCRA, "10/1m", "100/1h").fingerprint());
	}

	@Test
	void algorithmsAreFoundByConfigurationOrConstantName() {
		assertThat(Algorithm.of("sliding-window")).isEqualTo(Algorithm.SLIDING_WINDOW);
		assertThat(Algorithm.of("TOKEN_BUCKET")).isEqualTo(Algorithm.TOKEN_BUCKET);
		assertThatIllegalArgumentException().isThrownBy(() -> Algorithm.of("leaky"))
			.withMessage("Unknown rate limit algorithm 'leaky'; expected one of token-bucket, gcra, fixed-window, "
					+ "sliding-window, sliding-log");
	}

}
