package io.github.ratelimit.redis;

import java.time.Duration;
import java.util.List;

import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.core.Limit;
import io.github.ratelimit.core.Policy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The script arguments of a policy, as {@link LimitArguments} encodes them: permits, consume, then each limit's
 * constants.
 */
class LimitArgumentsTests {

	@Test
	void tokenBucketLimitsAreSentInTicks() {
		Policy policy = Policy.of("api", Algorithm.TOKEN_BUCKET, "100/1m", "7/1s");
		// 100/1m: g = 100, so a permit is 600,000 ticks and one tick refills per microsecond
		assertThat(arguments(policy, 1, true)).containsExactly("1", "1", "600000", "1", "60000000", "1000000", "7",
				"7000000");
	}

	@Test
	void gcraLimitsAreSentInTicksAsTheTokenBucketsAre() {
		Policy policy = Policy.of("api", Algorithm.GCRA, "100/1m", "7/1s");
		assertThat(arguments(policy, 2, false)).containsExactly("2", "0", "600000", "1", "60000000", "1000000", "7",
				"7000000");
	}

	@ParameterizedTest
	@EnumSource(names = { "FIXED_WINDOW", "SLIDING_WINDOW", "SLIDING_LOG" })
	void windowLimitsAreSentAsCapacityAndPeriod(Algorithm algorithm) {
		Policy policy = new Policy("api", algorithm, List.of(Limit.parse("5/10s"), Limit.parse("500/1d")));
		assertThat(arguments(policy, 1, true)).containsExactly("1", "1", "5", "10000000", "500", "86400000000");
	}

	@Test
	void aBucketOfTwoToThe53TicksIsSentExactly() {
		Policy policy = new Policy("api", Algorithm.TOKEN_BUCKET,
				List.of(Limit.of(1L << 53, Duration.ofNanos(1_024_000))));
		assertThat(arguments(policy, 1, true)).containsExactly("1", "1", "1", "8796093022208", "9007199254740992");
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void permitsAboveTwoToThe53AreSentAsANumberTheScriptHoldsExactly(Algorithm algorithm) {
		Policy policy = Policy.of("api", algorithm, "10/1s");
		assertThat(arguments(policy, 63, true).get(0)).isEqualTo("63");
		assertThat(arguments(policy, 64, true).get(0)).isEqualTo("64");
		assertThat(arguments(policy, 1L << 53, true).get(0)).isEqualTo("9007199254740992");
		assertThat(arguments(policy, (1L << 53) + 1, true).get(0)).isEqualTo("9007199254740994");
		assertThat(arguments(policy, Long.MAX_VALUE, true).get(0)).isEqualTo("9007199254740994");
	}

	private static List<String> arguments(Policy policy, long permits, boolean consume) {
		return RedisRateLimiterBackend.scriptArguments(policy, permits, consume);
	}

}
