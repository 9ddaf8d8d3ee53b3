package io.github.ratelimit.core.memory;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import com.github.benmanes.caffeine.cache.Ticker;
import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.core.LeaseGrant;
import io.github.ratelimit.core.LimitOutcome;
import io.github.ratelimit.core.Policy;
import io.github.ratelimit.redis.SuppliedClockScripts;
import io.github.ratelimit.test.ManualClock;
import io.github.ratelimit.test.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Leases and returns of each leasable twin against its Lua script on a real Redis, as {@link
 * TwinScriptDifferentialTests} ties their exact decisions: the same seeded walks over extreme limits and times (idle
 * gaps, a clock stepping backwards), with leases of every size (a minimum of 1 or the whole capacity, a maximum at,
 * between and far above it), returns of earlier leases' permits (fixed window) and exact decisions in between, every
 * grant, decision, clock and return compared.
 */
class TwinScriptLeaseDifferentialTests {

	private static final int STEPS = 400;

	private static LettuceConnectionFactory connectionFactory;

	private static StringRedisTemplate redis;

	@BeforeAll
	static void connect() {
		connectionFactory = TestRedis.get().newConnectionFactory();
		redis = new StringRedisTemplate(connectionFactory);
	}

	@AfterAll
	static void disconnect() {
		connectionFactory.destroy();
	}

	static Stream<Arguments> policies() {
		return Stream.of(Algorithm.values())
			.filter(Algorithm::leasable)
			.flatMap((algorithm) -> TwinScriptDifferentialTests.limits(algorithm)
				.stream()
				.map((limits) -> Arguments.of(algorithm, limits)));
	}

	@ParameterizedTest(name = "{0} {1}")
	@MethodSource("policies")
	void twinAndScriptLeaseAndTakeBackAlike(Algorithm algorithm, List<String> limits) {
		Policy policy = Policy.of("differential", algorithm, limits.toArray(String[]::new));
		ManualClock clock = new ManualClock(Instant.EPOCH);
		InMemoryRateLimiter twin = (InMemoryRateLimiter) new InMemoryRateLimiterBackend(clock, "ratelimit",
				InMemoryRateLimiterBackend.DEFAULT_MAXIMUM_CLIENTS, Ticker.disabledTicker())
			.create(policy);
		List<String> keys = TwinScriptDifferentialTests.keys(policy.limits().size());
		Random random = new Random(97L * algorithm.ordinal() + limits.hashCode());
		long capacity = policy.smallestCapacity();
		long now = TwinScriptDifferentialTests.START + random.nextLong(policy.limits().get(0).periodMicros());
		List<LeaseGrant> grants = new ArrayList<>();
		for (int step = 0; step < STEPS; step++) {
			now += TwinScriptDifferentialTests.delta(random, policy);
			if (now > TwinScriptDifferentialTests.START + TwinScriptDifferentialTests.SPAN) {
				now -= TwinScriptDifferentialTests.SPAN;
			}
			clock.set(Instant.EPOCH.plus(now, ChronoUnit.MICROS));
			String context = "step " + step + " at " + now;
			int action = random.nextInt(5);
			if (action < 2) {
				long permits = TwinScriptDifferentialTests.cost(random, capacity);
				boolean consume = action == 0;
				List<LimitOutcome> expected = twin.evaluate("client", permits, consume);
				assertThat(SuppliedClockScripts.run(redis, policy, keys, permits, consume, now))
					.as("%s: %d permits, consume %s", context, permits, consume)
					.isEqualTo(expected);
			}
			else if (action == 4 && algorithm == Algorithm.FIXED_WINDOW && !grants.isEmpty()) {
				LeaseGrant grant = grants.get(random.nextInt(grants.size()));
				long permits = (random.nextBoolean()) ? grant.granted() : random.nextLong(1, grant.granted() + 1);
				long expected = twin.returnLeasedAsync("client", grant, permits).toCompletableFuture().join();
				assertThat(SuppliedClockScripts.giveBack(redis, policy, keys, grant.takenAtMicros(), permits, now))
					.as("%s: %d permits back of a lease taken at %d", context, permits, grant.takenAtMicros())
					.isEqualTo(expected);
			}
			else {
				long minimum = TwinScriptDifferentialTests.cost(random, capacity);
				long maximum = switch (random.nextInt(3)) {
					case 0 -> minimum;
					case 1 -> Long.MAX_VALUE;
					default -> minimum + random.nextLong(capacity);
				};
				LeaseGrant expected = twin.tryLeaseAsync("client", minimum, maximum).toCompletableFuture().join();
				LeaseGrant actual = SuppliedClockScripts.lease(redis, policy, keys, minimum,
						Math.min(maximum, capacity), now);
				assertThat(actual).as("%s: lease of %d to %d", context, minimum, maximum).isEqualTo(expected);
				if (actual.allowed()) {
					grants.add(actual);
				}
			}
		}
	}

}
