package io.github.ratelimit.core.memory;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import com.github.benmanes.caffeine.cache.Ticker;
import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.core.Limit;
import io.github.ratelimit.core.LimitDecision;
import io.github.ratelimit.core.Policy;
import io.github.ratelimit.test.ManualClock;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Properties of every twin over seeded random sequences of times, costs and limits, on a clock the test sets: each
 * seed is one sequence, so a failure names the seed that reproduces it.
 * <ul>
 * <li>remaining stays within [0, capacity]; a full limit has no wait for its next permit;</li>
 * <li>a refusal and a peek change no state;</li>
 * <li>a satisfiable refusal's retry-after is exact for each limit, sliding window included: at {@code now +
 * retryAfter} the limit admits the request, one microsecond earlier it does not;</li>
 * <li>the next permit (draft-10's {@code t}) is exact too, and never later than retry-after;</li>
 * <li>no sequence admits more than the algorithm allows, on a clock that only moves forwards, and on one that steps
 * backwards (lagging the true time by a growing offset), measured on the true time;</li>
 * <li>reserved permits used when they are due are never more than the algorithm allows either.</li>
 * </ul>
 */
class InMemoryAlgorithmPropertiesTests {

	private static final long START = ChronoUnit.MICROS.between(Instant.EPOCH, Instant.parse("2026-06-01T00:00:00Z"));

	private static final List<String> LIMITS = List.of("1/1ms", "3/10ms", "5/1s", "7/1s", "10/1m", "20/1h", "2/1d");

	private static final int STEPS = 200;

	static Stream<Arguments> sequences() {
		return Stream.of(Algorithm.values())
			.flatMap((algorithm) -> IntStream.range(0, 40).mapToObj((seed) -> Arguments.of(algorithm, seed)));
	}

	@ParameterizedTest(name = "{0} seed {1}")
	@MethodSource("sequences")
	void outcomesAreBoundedExactAndChangeNothingWhenRefused(Algorithm algorithm, int seed) {
		Random random = new Random(seed);
		Run run = new Run(policy(algorithm, random));
		long now = START + random.nextLong(86_400_000_000L);
		for (int step = 0; step < STEPS; step++) {
			now = Math.max(START, now + delta(random, run.policy, true));
			long permits = 1 + random.nextLong(run.policy.smallestCapacity());
			String context = "seed " + seed + " step " + step;
			Object before = run.state();
			List<LimitDecision> peeked = run.evaluate(now, 1, false);
			assertThat(run.state()).as(context).isSameAs(before);
			List<LimitDecision> outcomes = run.evaluate(now, permits, true);
			boolean admitted = outcomes.stream().allMatch(LimitDecision::allowed);
			if (!admitted) {
				assertThat(run.state()).as(context).isSameAs(before);
				assertThat(run.evaluate(now, 1, false)).as(context).isEqualTo(peeked);
			}
			for (LimitDecision outcome : outcomes) {
				long capacity = outcome.limit().capacity();
				assertThat(outcome.remaining()).as(context).isBetween(0L, capacity);
				assertThat(outcome.nextPermitMicros() == 0).as(context).isEqualTo(outcome.remaining() == capacity);
				if (!outcome.allowed()) {
					assertThat(outcome.nextPermitMicros()).as(context).isLessThanOrEqualTo(outcome.retryAfterMicros());
				}
			}
			if (!admitted) {
				assertRetryIsExact(run, outcomes, now, permits, context);
			}
			assertNextPermitIsExact(run, now, context);
		}
	}

	@ParameterizedTest(name = "{0} seed {1}")
	@MethodSource("sequences")
	void noSequenceAdmitsMoreThanTheAlgorithmAllows(Algorithm algorithm, int seed) {
		Random random = new Random(1000 + seed);
		Run forwards = new Run(policy(algorithm, random));
		Run stepping = new Run(forwards.policy);
		long now = START + random.nextLong(86_400_000_000L);
		long lag = 0;
		List<long[]> admittedForwards = new ArrayList<>();
		List<long[]> admittedStepping = new ArrayList<>();
		for (int step = 0; step < STEPS; step++) {
			now += Math.max(0, delta(random, forwards.policy, false));
			if (random.nextInt(10) == 0) {
				lag += random.nextLong(1, 2 * forwards.policy.limits().get(0).periodMicros() + 1);
			}
			long permits = 1 + random.nextLong(forwards.policy.smallestCapacity());
			if (forwards.evaluate(now, permits, true).stream().allMatch(LimitDecision::allowed)) {
				admittedForwards.add(new long[] { now, now, permits });
			}
			if (stepping.evaluate(now - lag, permits, true).stream().allMatch(LimitDecision::allowed)) {
				admittedStepping.add(new long[] { now, now - lag, permits });
			}
		}
		for (Limit limit : forwards.policy.limits()) {
			assertAllowed(algorithm, limit, admittedForwards, "seed " + seed + ", clock moving forwards");
			assertAllowed(algorithm, limit, admittedStepping, "seed " + seed + ", clock stepping back");
		}
	}

	static Stream<Arguments> reservingSequences() {
		return sequences().filter((arguments) -> ((Algorithm) arguments.get()[0]).reservable());
	}

	/**
	 * Reservations mixed with decisions that do not wait: permits used when they are due (an admission's largest
	 * retry-after after its decision), never later than the caller's maximum wait, are never more than the
	 * algorithm allows over any span of time.
	 */
	@ParameterizedTest(name = "{0} seed {1}")
	@MethodSource("reservingSequences")
	void reservedPermitsUsedWhenDueNeverExceedWhatTheAlgorithmAllows(Algorithm algorithm, int seed) {
		Random random = new Random(2000 + seed);
		Run run = new Run(policy(algorithm, random));
		long now = START + random.nextLong(86_400_000_000L);
		List<long[]> used = new ArrayList<>();
		int later = 0;
		for (int step = 0; step < STEPS; step++) {
			now += (random.nextInt(3) == 0) ? Math.max(0, delta(random, run.policy, false)) : random.nextLong(0, 3);
			long permits = 1 + random.nextLong(run.policy.smallestCapacity());
			Limit limit = run.policy.limits().get(random.nextInt(run.policy.limits().size()));
			long maxWait = (random.nextInt(4) == 0) ? 0 : random.nextLong(1, 2 * limit.periodMicros() + 1);
			List<LimitDecision> outcomes = (maxWait == 0) ? run.evaluate(now, permits, true)
					: run.reserve(now, permits, maxWait);
			if (outcomes.stream().allMatch(LimitDecision::allowed)) {
				long due = outcomes.stream().mapToLong(LimitDecision::retryAfterMicros).max().orElseThrow();
				assertThat(due).as("seed %d step %d", seed, step).isBetween(0L, maxWait);
				later += (due > 0) ? 1 : 0;
				used.add(new long[] { now + due, now + due, permits });
			}
		}
		used.sort(java.util.Comparator.comparingLong((admission) -> admission[0]));
		for (Limit limit : run.policy.limits()) {
			assertAllowed(algorithm, limit, used, "seed " + seed + ", permits used when due");
		}
		assertThat(later).as("reservations due later").isPositive();
	}

	/** Checks admissions ({@code [true time, clock time, permits]}, in order) against what the algorithm allows. */
	private static void assertAllowed(Algorithm algorithm, Limit limit, List<long[]> admitted, String context) {
		long capacity = limit.capacity();
		long period = limit.periodMicros();
		switch (algorithm) {
			// over any span T of true time: at most C + C * T / period
			case TOKEN_BUCKET, GCRA -> {
				for (int i = 0; i < admitted.size(); i++) {
					long sum = 0;
					for (int j = i; j < admitted.size(); j++) {
						sum += admitted.get(j)[2];
						long span = admitted.get(j)[0] - admitted.get(i)[0];
						assertThat(sum).as(context).isLessThanOrEqualTo(capacity + Math.floorDiv(capacity * span, period));
					}
				}
			}
			// at most C in any period of true time
			case SLIDING_LOG -> {
				for (int j = 0; j < admitted.size(); j++) {
					long sum = 0;
					for (int i = j; i >= 0 && admitted.get(i)[0] > admitted.get(j)[0] - period; i--) {
						sum += admitted.get(i)[2];
					}
					assertThat(sum).as(context).isLessThanOrEqualTo(capacity);
				}
			}
			// at most C per window of the clock; a window from the future stays current
			case FIXED_WINDOW, SLIDING_WINDOW -> {
				long window = Long.MIN_VALUE;
				long sum = 0;
				for (long[] admission : admitted) {
					long current = Math.max(window, Math.floorDiv(admission[1], period));
					sum = (current == window) ? sum + admission[2] : admission[2];
					window = current;
					assertThat(sum).as(context).isLessThanOrEqualTo(capacity);
				}
			}
		}
	}

	private static void assertRetryIsExact(Run run, List<LimitDecision> outcomes, long now, long permits,
			String context) {
		for (int i = 0; i < outcomes.size(); i++) {
			LimitDecision outcome = outcomes.get(i);
			if (!outcome.allowed()) {
				long retry = outcome.retryAfterMicros();
				assertThat(retry).as(context).isPositive();
				assertThat(run.evaluate(now + retry - 1, permits, false).get(i).allowed()).as(context + " before retry")
					.isFalse();
				assertThat(run.evaluate(now + retry, permits, false).get(i).allowed()).as(context + " at retry")
					.isTrue();
			}
		}
	}

	private static void assertNextPermitIsExact(Run run, long now, String context) {
		List<LimitDecision> outcomes = run.evaluate(now, 1, false);
		for (int i = 0; i < outcomes.size(); i++) {
			LimitDecision outcome = outcomes.get(i);
			long next = outcome.nextPermitMicros();
			if (next > 0) {
				assertThat(run.evaluate(now + next - 1, 1, false).get(i).remaining()).as(context + " before next")
					.isEqualTo(outcome.remaining());
				assertThat(run.evaluate(now + next, 1, false).get(i).remaining()).as(context + " at next")
					.isGreaterThan(outcome.remaining());
			}
		}
	}

	private static Policy policy(Algorithm algorithm, Random random) {
		List<String> limits = new ArrayList<>(List.of(LIMITS.get(random.nextInt(LIMITS.size()))));
		if (random.nextBoolean()) {
			String second = LIMITS.get(random.nextInt(LIMITS.size()));
			if (!Limit.parse(second).period().equals(Limit.parse(limits.get(0)).period())) {
				limits.add(second);
			}
		}
		return Policy.of("properties", algorithm, limits.toArray(String[]::new));
	}

	/** The next step of time: the same microsecond, the next, a fraction of a period, periods, a long gap or back. */
	private static long delta(Random random, Policy policy, boolean backwards) {
		Limit limit = policy.limits().get(random.nextInt(policy.limits().size()));
		long period = limit.periodMicros();
		long permit = Math.max(1, period / limit.capacity());
		return switch (random.nextInt(backwards ? 9 : 7)) {
			case 0 -> 0;
			case 1 -> 1;
			case 2, 3 -> random.nextLong(1, permit + 1);
			case 4 -> random.nextLong(1, 2 * period + 1);
			case 5 -> random.nextLong(1, 3 * permit + 1);
			case 6 -> (random.nextInt(5) == 0) ? random.nextLong(1, 3 * 86_400_000_000L) : permit;
			case 7 -> -random.nextLong(1, permit + 1);
			default -> -random.nextLong(1, 2 * period + 1);
		};
	}

	/**
	 * One client of a policy on its own backend, whose clock each evaluation sets; its state never expires from the
	 * cache (the algorithms' own expiry still applies), so no probe of a later time drops state.
	 */
	private static final class Run {

		private final Policy policy;

		private final ManualClock clock = new ManualClock(Instant.EPOCH);

		private final InMemoryRateLimiterBackend backend = new InMemoryRateLimiterBackend(this.clock, "ratelimit",
				InMemoryRateLimiterBackend.DEFAULT_MAXIMUM_CLIENTS, Ticker.disabledTicker());

		private final InMemoryRateLimiter limiter;

		Run(Policy policy) {
			this.policy = policy;
			this.limiter = (InMemoryRateLimiter) this.backend.create(policy);
		}

		List<LimitDecision> evaluate(long now, long permits, boolean consume) {
			this.clock.set(Instant.EPOCH.plus(now, ChronoUnit.MICROS));
			return this.limiter.evaluate("client", permits, consume).toCompletableFuture().join();
		}

		List<LimitDecision> reserve(long now, long permits, long maxWait) {
			this.clock.set(Instant.EPOCH.plus(now, ChronoUnit.MICROS));
			return this.limiter.reserve("client", permits, maxWait).toCompletableFuture().join();
		}

		Object state() {
			return this.backend.entries().get(this.backend.entries().keySet().stream().findFirst().orElse(""));
		}

	}

}
