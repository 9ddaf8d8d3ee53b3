package io.github.ratelimit.core.memory;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.stream.Stream;

import com.github.benmanes.caffeine.cache.Ticker;
import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.core.LeaseGrant;
import io.github.ratelimit.core.Limit;
import io.github.ratelimit.core.LimitDecision;
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
 * Each in-memory twin against its Lua script on a real Redis: the same sequences of times, costs and limits, every
 * field of every limit's outcome compared. Redis' {@code TIME} cannot be set, so the script runs with the time the
 * test supplies ({@link SuppliedClockScripts}); keys are kept without a TTL, and the twin's cache keeps its entries
 * too (its expiry ticker stands still, since the clock here steps back across expiry times), so the only expiry is
 * the twin's own reading of a limit's state as fresh, which must decide exactly as the script's stored state.
 * Sequences are seeded random walks over extreme cases: costs of 1 and of the whole capacity, capacities of 1 and at
 * the bounds, periods of 1ms and 1000 days, long idle gaps and a clock that steps backwards. Leasable algorithms also
 * walk with leases of every size (a minimum of 1 or the whole capacity, a maximum at, between and far above it) and
 * returns of earlier leases' permits (fixed window) between exact decisions, every grant, clock and return compared;
 * reservable algorithms walk with reservations of every wait into debt and back.
 */
class TwinScriptDifferentialTests {

	/** Times are kept within twenty years of the start, so below 2^53 microseconds since the epoch. */
	private static final long SPAN = 20 * 365 * 86_400_000_000L;

	private static final long START = ChronoUnit.MICROS.between(Instant.EPOCH, Instant.parse("2026-03-01T00:00:00Z"));

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
		List<Arguments> policies = new ArrayList<>();
		for (Algorithm algorithm : Algorithm.values()) {
			for (List<String> limits : limits(algorithm)) {
				policies.add(Arguments.of(algorithm, limits));
			}
		}
		return policies.stream();
	}

	private static List<List<String>> limits(Algorithm algorithm) {
		List<List<String>> common = List.of(List.of("1/1ms"), List.of("5/10s"), List.of("7/1s"), List.of("10/1m", "3/1h"),
				List.of("3/1ms", "100/1d"), List.of("1/1000d"), List.of("103/1000d", "2/1s"));
		List<List<String>> bounds = switch (algorithm) {
			case SLIDING_LOG -> List.of(List.of("500/1ms"), List.of("500/1d", "499/1h"));
			case SLIDING_WINDOW -> List.of(List.of("9007199254740/1ms"), List.of("104249/1d", "104249/1h"));
			default -> List.of(List.of("9007199254740/1ms"), List.of("999999937/1s", "104249/1d"));
		};
		return Stream.concat(common.stream(), bounds.stream()).toList();
	}

	static Stream<Arguments> leasablePolicies() {
		return policies().filter((arguments) -> ((Algorithm) arguments.get()[0]).leasable());
	}

	@ParameterizedTest(name = "{0} {1}")
	@MethodSource("policies")
	void twinAndScriptDecideAlike(Algorithm algorithm, List<String> limits) {
		Policy policy = Policy.of("differential", algorithm, limits.toArray(String[]::new));
		ManualClock clock = new ManualClock(Instant.EPOCH);
		InMemoryRateLimiter twin = twin(policy, clock);
		List<String> keys = keys(policy.limits().size());
		Random random = new Random(31L * algorithm.ordinal() + limits.hashCode());
		long now = START + random.nextLong(policy.limits().get(0).periodMicros());
		for (int step = 0; step < STEPS; step++) {
			now += delta(random, policy);
			if (now > START + SPAN) {
				now -= SPAN;
			}
			long permits = cost(random, policy.smallestCapacity());
			boolean consume = random.nextInt(5) > 0;
			clock.set(Instant.EPOCH.plus(now, ChronoUnit.MICROS));
			List<LimitDecision> expected = twin.evaluate("client", permits, consume).toCompletableFuture().join();
			List<LimitDecision> actual = SuppliedClockScripts.run(redis, policy, keys, permits, consume, now);
			assertThat(actual).as("step %d at %d: %d permits, consume %s", step, now, permits, consume)
				.isEqualTo(expected);
		}
	}

	@ParameterizedTest(name = "{0} {1}")
	@MethodSource("leasablePolicies")
	void twinAndScriptLeaseAndTakeBackAlike(Algorithm algorithm, List<String> limits) {
		Policy policy = Policy.of("differential", algorithm, limits.toArray(String[]::new));
		ManualClock clock = new ManualClock(Instant.EPOCH);
		InMemoryRateLimiter twin = twin(policy, clock);
		List<String> keys = keys(policy.limits().size());
		Random random = new Random(97L * algorithm.ordinal() + limits.hashCode());
		long capacity = policy.smallestCapacity();
		long now = START + random.nextLong(policy.limits().get(0).periodMicros());
		List<LeaseGrant> grants = new ArrayList<>();
		for (int step = 0; step < STEPS; step++) {
			now += delta(random, policy);
			if (now > START + SPAN) {
				now -= SPAN;
			}
			clock.set(Instant.EPOCH.plus(now, ChronoUnit.MICROS));
			String context = "step " + step + " at " + now;
			int action = random.nextInt(5);
			if (action < 2) {
				long permits = cost(random, capacity);
				boolean consume = action == 0;
				List<LimitDecision> expected = twin.evaluate("client", permits, consume).toCompletableFuture().join();
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
				long minimum = cost(random, capacity);
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

	static Stream<Arguments> reservablePolicies() {
		return policies().filter((arguments) -> ((Algorithm) arguments.get()[0]).reservable());
	}

	/**
	 * Reservations between exact decisions and reads: waits of a microsecond, a spacing, a period and beyond, so that
	 * the state runs into debt and back, every outcome compared (the due time of an admitted reservation among them).
	 */
	@ParameterizedTest(name = "{0} {1}")
	@MethodSource("reservablePolicies")
	void twinAndScriptReserveAlike(Algorithm algorithm, List<String> limits) {
		Policy policy = Policy.of("differential", algorithm, limits.toArray(String[]::new));
		ManualClock clock = new ManualClock(Instant.EPOCH);
		InMemoryRateLimiter twin = twin(policy, clock);
		List<String> keys = keys(policy.limits().size());
		Random random = new Random(53L * algorithm.ordinal() + limits.hashCode());
		long capacity = policy.smallestCapacity();
		long now = START + random.nextLong(policy.limits().get(0).periodMicros());
		int reservedLater = 0;
		for (int step = 0; step < STEPS; step++) {
			// mostly small steps, so that reservations pile up into debt
			now += (random.nextInt(3) == 0) ? delta(random, policy) : random.nextLong(0, 3);
			if (now > START + SPAN) {
				now -= SPAN;
			}
			clock.set(Instant.EPOCH.plus(now, ChronoUnit.MICROS));
			long permits = cost(random, capacity);
			if (random.nextInt(4) == 0) {
				boolean consume = random.nextBoolean();
				assertThat(SuppliedClockScripts.run(redis, policy, keys, permits, consume, now))
					.as("step %d at %d: %d permits, consume %s", step, now, permits, consume)
					.isEqualTo(twin.evaluate("client", permits, consume).toCompletableFuture().join());
				continue;
			}
			Limit limit = policy.limits().get(random.nextInt(policy.limits().size()));
			long maxWait = switch (random.nextInt(5)) {
				case 0 -> 1;
				case 1 -> Math.max(1, limit.periodMicros() / limit.capacity());
				case 2 -> limit.periodMicros();
				case 3 -> Limit.EXACT_INTEGER_LIMIT;
				default -> random.nextLong(1, 2 * limit.periodMicros() + 1);
			};
			List<LimitDecision> expected = twin.reserve("client", permits, maxWait).toCompletableFuture().join();
			assertThat(SuppliedClockScripts.reserve(redis, policy, keys, permits, maxWait, now))
				.as("step %d at %d: reserve %d permits, waiting up to %d us", step, now, permits, maxWait)
				.isEqualTo(expected);
			if (expected.stream().allMatch(LimitDecision::allowed)
					&& expected.stream().anyMatch((outcome) -> outcome.retryAfterMicros() > 0)) {
				reservedLater++;
			}
		}
		assertThat(reservedLater).as("reservations admitted for later (the walk ran into debt)").isPositive();
	}

	private static InMemoryRateLimiter twin(Policy policy, ManualClock clock) {
		return (InMemoryRateLimiter) new InMemoryRateLimiterBackend(clock, "ratelimit",
				InMemoryRateLimiterBackend.DEFAULT_MAXIMUM_CLIENTS, Ticker.disabledTicker())
			.create(policy);
	}

	/** The next time: often the same or the next microsecond, else up to two periods on, an idle gap or a step back. */
	private static long delta(Random random, Policy policy) {
		Limit limit = policy.limits().get(random.nextInt(policy.limits().size()));
		long period = limit.periodMicros();
		return switch (random.nextInt(10)) {
			case 0 -> 0;
			case 1 -> 1;
			case 2 -> random.nextLong(1, Math.max(2, period / limit.capacity() + 1));
			case 3, 4, 5 -> random.nextLong(1, 2 * period + 1);
			case 6 -> random.nextLong(1, 10 * 86_400_000_000L);
			case 7 -> -random.nextLong(1, Math.max(2, period / limit.capacity() + 1));
			case 8 -> -random.nextLong(1, 2 * period + 1);
			default -> random.nextLong(1, period + 1) - period / 2;
		};
	}

	/** Often 1 or the whole smallest capacity, else anything between. */
	private static long cost(Random random, long smallestCapacity) {
		return switch (random.nextInt(4)) {
			case 0 -> 1;
			case 1 -> smallestCapacity;
			default -> random.nextLong(1, smallestCapacity + 1);
		};
	}

	private static List<String> keys(int limits) {
		String client = "differential:{" + UUID.randomUUID() + "}:";
		List<String> keys = new ArrayList<>();
		for (int i = 0; i < limits; i++) {
			keys.add(client + i);
		}
		return keys;
	}

}
