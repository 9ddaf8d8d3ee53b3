package io.github.ratelimit.core.memory;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletionStage;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import com.github.benmanes.caffeine.cache.Ticker;
import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.LeaseGrant;
import io.github.ratelimit.core.Limit;
import io.github.ratelimit.core.LimitDecision;
import io.github.ratelimit.core.Policy;
import io.github.ratelimit.test.ManualClock;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Properties of leases on every leasable twin, over seeded random histories on a clock the test sets (forwards,
 * backwards, long gaps): two clients of one policy live through the same history, except that one takes a lease where
 * the other takes single permits.
 * <ul>
 * <li>a grant of {@code g} takes exactly what {@code g} single permits would: each of them is admitted and the state
 * after them equals the state after the grant;</li>
 * <li>a grant below the maximum leaves no permit: one more single permit is refused;</li>
 * <li>a refused lease is the refusal of its minimum and changes nothing;</li>
 * <li>the fixed window takes back exactly the permits still counted in the window they were taken from, and nothing
 * into any other window.</li>
 * </ul>
 */
class InMemoryLeaseGrantPropertiesTests {

	private static final long START = ChronoUnit.MICROS.between(Instant.EPOCH, Instant.parse("2026-06-01T00:00:00Z"));

	private static final List<String> LIMITS = List.of("1/1ms", "3/10ms", "5/1s", "7/1s", "10/1m", "20/1h", "2/1d",
			"1000/1s");

	private static final int STEPS = 300;

	static Stream<Arguments> histories() {
		return Stream.of(Algorithm.TOKEN_BUCKET, Algorithm.GCRA, Algorithm.FIXED_WINDOW)
			.flatMap((algorithm) -> IntStream.range(0, 40).mapToObj((seed) -> Arguments.of(algorithm, seed)));
	}

	@ParameterizedTest(name = "{0} seed {1}")
	@MethodSource("histories")
	void grantsTakeWhatSinglePermitsWouldAndReturnsOnlyIntoTheirWindow(Algorithm algorithm, int seed) {
		Random random = new Random(seed);
		Policy policy = policy(algorithm, random);
		Twin leasing = new Twin(policy);
		Twin single = new Twin(policy);
		long now = START + random.nextLong(86_400_000_000L);
		LeaseGrant last = null;
		for (int step = 0; step < STEPS; step++) {
			now = Math.max(START, now + delta(random, policy));
			String context = "seed " + seed + " step " + step;
			long capacity = policy.smallestCapacity();
			int action = random.nextInt(4);
			if (action == 0) {
				long permits = 1 + random.nextLong(capacity);
				leasing.acquire(now, permits);
				single.acquire(now, permits);
			}
			else if (action == 3 && algorithm == Algorithm.FIXED_WINDOW && last != null && last.allowed()) {
				long permits = random.nextLong(1, last.granted() + 1);
				long[][] before = leasing.states(now);
				long returned = leasing.giveBack(now, last, permits);
				assertThat(single.giveBack(now, last, permits)).as(context).isEqualTo(returned);
				assertReturned(policy, before, leasing.states(now), last.takenAtMicros(), permits, returned, context);
			}
			else {
				long minimum = 1 + random.nextLong(capacity);
				long maximum = (random.nextInt(4) == 0) ? Long.MAX_VALUE : minimum + random.nextLong(2 * capacity);
				LeaseGrant grant = leasing.lease(now, minimum, maximum);
				assertGrantIsSinglePermits(single, grant, now, minimum, Math.min(maximum, capacity), context);
				last = grant;
			}
			assertThat(leasing.states(now)).as(context).isDeepEqualTo(single.states(now));
		}
	}

	private static void assertGrantIsSinglePermits(Twin single, LeaseGrant grant, long now, long minimum,
			long maximum, String context) {
		assertThat(grant.takenAtMicros()).as(context).isEqualTo(now);
		if (grant.granted() == 0) {
			Decision refusal = single.acquire(now, minimum);
			assertThat(refusal.allowed()).as(context).isFalse();
			assertThat(grant.decision()).as(context).isEqualTo(refusal);
			return;
		}
		assertThat(grant.granted()).as(context).isBetween(minimum, maximum);
		assertThat(grant.decision().allowed()).as(context).isTrue();
		Decision lastSingle = null;
		for (long i = 0; i < grant.granted(); i++) {
			lastSingle = single.acquire(now, 1);
			assertThat(lastSingle.allowed()).as(context + " single permit " + i).isTrue();
		}
		assertThat(grant.decision().remaining()).as(context).isEqualTo(lastSingle.remaining());
		if (grant.granted() < maximum) {
			assertThat(single.peek(now).allowed()).as(context + " one more").isFalse();
		}
	}

	/** Each limit's count goes down by what was returned when its window is the grant's, else stays. */
	private static void assertReturned(Policy policy, long[][] before, long[][] after, long takenAt, long permits,
			long returned, String context) {
		long fewest = permits;
		for (int i = 0; i < before.length; i++) {
			Limit limit = policy.limits().get(i);
			boolean sameWindow = before[i] != null && before[i][0] == Math.floorDiv(takenAt, limit.periodMicros());
			long expected = sameWindow ? Math.max(0, before[i][1] - permits) : (before[i] != null) ? before[i][1] : 0;
			long count = (after[i] != null) ? after[i][1] : 0;
			assertThat(count).as(context + " limit " + limit).isEqualTo(expected);
			fewest = Math.min(fewest, sameWindow ? before[i][1] - expected : 0);
		}
		assertThat(returned).as(context).isEqualTo(fewest);
	}

	private static Policy policy(Algorithm algorithm, Random random) {
		String first = LIMITS.get(random.nextInt(LIMITS.size()));
		String second = LIMITS.get(random.nextInt(LIMITS.size()));
		if (random.nextBoolean() || Limit.parse(first).period().equals(Limit.parse(second).period())) {
			return Policy.of("leases", algorithm, first);
		}
		return Policy.of("leases", algorithm, first, second);
	}

	/** The next step of time: the same microsecond, a fraction of a period, periods, a long gap, or back. */
	private static long delta(Random random, Policy policy) {
		Limit limit = policy.limits().get(random.nextInt(policy.limits().size()));
		long period = limit.periodMicros();
		long permit = Math.max(1, period / limit.capacity());
		return switch (random.nextInt(8)) {
			case 0 -> 0;
			case 1, 2 -> random.nextLong(1, permit + 1);
			case 3 -> random.nextLong(1, 2 * period + 1);
			case 4 -> (random.nextInt(5) == 0) ? random.nextLong(1, 3 * 86_400_000_000L) : permit;
			case 5 -> -random.nextLong(1, permit + 1);
			case 6 -> -random.nextLong(1, 2 * period + 1);
			default -> 1;
		};
	}

	/**
	 * One client of a policy on its own backend, whose clock each call sets; its state never expires from the cache
	 * (the algorithms' own expiry still applies).
	 */
	private static final class Twin {

		private final ManualClock clock = new ManualClock(Instant.EPOCH);

		private final InMemoryRateLimiterBackend backend = new InMemoryRateLimiterBackend(this.clock, "ratelimit",
				InMemoryRateLimiterBackend.DEFAULT_MAXIMUM_CLIENTS, Ticker.disabledTicker());

		private final InMemoryRateLimiter limiter;

		Twin(Policy policy) {
			this.limiter = (InMemoryRateLimiter) this.backend.create(policy);
		}

		Decision acquire(long now, long permits) {
			at(now);
			return this.limiter.tryAcquire("client", permits);
		}

		Decision peek(long now) {
			at(now);
			return this.limiter.peek("client");
		}

		LeaseGrant lease(long now, long minimum, long maximum) {
			at(now);
			return join(this.limiter.tryLeaseAsync("client", minimum, maximum));
		}

		long giveBack(long now, LeaseGrant grant, long permits) {
			at(now);
			return join(this.limiter.returnLeasedAsync("client", grant, permits));
		}

		/** Each limit's live state at {@code now}, {@code null} where there is none. */
		long[][] states(long now) {
			InMemoryRateLimiter.Entry entry = this.backend.entries().values().stream().findFirst().orElse(null);
			long[][] states = new long[this.limiter.policy().limits().size()][];
			for (int i = 0; entry != null && i < states.length; i++) {
				states[i] = (entry.expiries()[i] > now) ? entry.states()[i] : null;
			}
			return states;
		}

		private void at(long now) {
			this.clock.set(Instant.EPOCH.plus(now, ChronoUnit.MICROS));
		}

		private static <T> T join(CompletionStage<T> stage) {
			return stage.toCompletableFuture().join();
		}

	}

}
