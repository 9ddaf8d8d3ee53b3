package io.github.ratelimit.core;

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
