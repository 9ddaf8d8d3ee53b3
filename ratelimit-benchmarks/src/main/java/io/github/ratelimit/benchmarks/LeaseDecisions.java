package io.github.ratelimit.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.ToDoubleBiFunction;
import java.util.function.ToDoubleFunction;

import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.core.Policy;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.core.lease.LeaseSettings;
import io.github.ratelimit.core.lease.LeasedRateLimiter;
import org.jspecify.annotations.Nullable;

/**
 * Decisions per second and Redis calls per decision of leased permits ({@link LeasedRateLimiter} over our Redis
 * backend) against exact decisions (the backend alone), for one hot key and for {@link DecisionLoad#KEYS} keys, per
 * leasable algorithm and thread count; within a run the two modes of a cell are measured one right after the other,
 * in an order that alternates from run to run. Every decision is admitted: a refusal counts as an error.
 */
final class LeaseDecisions {

	/** The algorithms measured: the token bucket (leases expire unused) and the fixed window (leases are returned). */
	static final List<Algorithm> ALGORITHMS = List.of(Algorithm.TOKEN_BUCKET, Algorithm.FIXED_WINDOW);

	/**
	 * A limit that even local decisions of one hot key never reach in a whole run (a few tens of millions of permits),
	 * whose state outlives the run.
	 */
	static final String LIMIT = "1000000000/100d";

	/** How the leased limiters lease (and the HTTP cell's leased apps). */
	static final LeaseSettings LEASE = new LeaseSettings(100, true, Duration.ofSeconds(1));

	/**
	 * How the large-batch limiters lease: a batch that one hot key's 64 threads on one CPU do not use up within a
	 * renewal's round trip, so that what their decisions cost is the take from the lease in hand, not waiting for the
	 * next grant (a key's rate on an instance is bounded by about a batch per round trip).
	 */
	static final LeaseSettings LARGE_LEASE = new LeaseSettings(10_000, true, Duration.ofSeconds(1));

	private LeaseDecisions() {
	}

	/**
	 * Measures every cell.
	 * @param server the Redis server
	 * @param admin an admin connection to it
	 * @param load the timed loop
	 * @param threads the client threads of each cell
	 * @param runs how many times every cell is measured
	 * @param prime whether every client's keys are written (and leased) once before anything is measured
	 * @param log progress
	 * @return every measurement
	 */
	static Result measure(OwnRedis server, RedisAdmin admin, DecisionLoad load, List<Integer> threads, int runs,
			boolean prime, Consumer<String> log) {
		Map<Cell, Contender> contenders = new LinkedHashMap<>();
		try (OurBackend ours = new OurBackend(server)) {
			for (Algorithm algorithm : ALGORITHMS) {
				for (Mode mode : Mode.values()) {
					RateLimiter shared = ours.backend().create(Policy.of(mode.name().toLowerCase(Locale.ROOT),
							algorithm, LIMIT));
					LeaseSettings lease = mode.lease();
					for (Keys keys : Keys.values()) {
						contenders.put(new Cell(algorithm, keys, mode, 0), new Admitted(
								(lease != null) ? new LeasedRateLimiter(shared, lease) : shared, keys));
					}
				}
			}
			// one decision each, even unprimed: a contender that cannot decide fails here, and the first lease's class
			// loading (Caffeine's cache) is not measured
			contenders.values().forEach((contender) -> contender.decide(0));
			if (prime) {
				log.accept("leased permits: writing (and leasing) every client's keys once");
				contenders.values().forEach(DecisionBenchmark::prime);
			}
			Result result = new Result(threads);
			for (int run = 0; run < runs; run++) {
				for (int threadCount : threads) {
					for (Algorithm algorithm : ALGORITHMS) {
						for (Keys keys : Keys.values()) {
							List<Mode> order = new ArrayList<>(List.of(Mode.values()));
							Collections.rotate(order, -run);
							for (Mode mode : order) {
								log.accept("run " + (run + 1) + "/" + runs + ": " + mode.label() + ", "
										+ algorithm.id() + ", " + keys.label() + ", " + MissNotes.threads(threadCount));
								Cell cell = new Cell(algorithm, keys, mode, threadCount);
								result.add(cell, load.run(contenders.get(cell.anyThreads()), threadCount, admin));
							}
						}
					}
				}
			}
			return result;
		}
		finally {
			contenders.values().forEach(Contender::close);
		}
	}

	/**
	 * Which keys the load spreads over.
	 */
	enum Keys {

		/** Every decision for the same key, as a global limit or one big customer. */
		HOT("one hot key"),

		/** Random clients among {@link DecisionLoad#KEYS}. */
		SPREAD(String.format(Locale.ROOT, "%,d keys", DecisionLoad.KEYS));

		private final String label;

		Keys(String label) {
			this.label = label;
		}

		String label() {
			return this.label;
		}

	}

	/**
	 * How a decision is made.
	 */
	enum Mode {

		/** One script call per decision. */
		EXACT("exact", null),

		/** From leases of {@link LeaseDecisions#LEASE}. */
		LEASED("leased", LEASE),

		/** From leases of {@link LeaseDecisions#LARGE_LEASE}. */
		LEASED_LARGE(String.format(Locale.ROOT, "leased, batch %,d", LARGE_LEASE.batch()), LARGE_LEASE);

		private final String label;

		private final @Nullable LeaseSettings lease;

		Mode(String label, @Nullable LeaseSettings lease) {
			this.label = label;
			this.lease = lease;
		}

		String label() {
			return this.label;
		}

		/**
		 * How this mode leases.
		 * @return the lease settings, {@code null} when exact
		 */
		@Nullable LeaseSettings lease() {
			return this.lease;
		}

	}

	/**
	 * One algorithm, key spread, mode and thread count.
	 *
	 * @param algorithm the algorithm
	 * @param keys the keys the load spreads over
	 * @param mode exact or leased
	 * @param threads the client threads
	 */
	record Cell(Algorithm algorithm, Keys keys, Mode mode, int threads) {

		/** The cell without its thread count: the key of the contender every thread count of it shares. */
		Cell anyThreads() {
			return new Cell(this.algorithm, this.keys, this.mode, 0);
		}

		Cell exact() {
			return new Cell(this.algorithm, this.keys, Mode.EXACT, this.threads);
		}

	}

	/**
	 * A limiter whose every decision must be admitted: a refusal throws, so the load counts it as an error.
	 */
	private static final class Admitted implements Contender {

		private final RateLimiter limiter;

		private final Keys keys;

		private final String[] clients = OurLimiter.clients();

		Admitted(RateLimiter limiter, Keys keys) {
			this.limiter = limiter;
			this.keys = keys;
		}

		@Override
		public boolean decide(int client) {
			String key = this.clients[(this.keys == Keys.HOT) ? 0 : client];
			if (!this.limiter.tryAcquire(key).allowed()) {
				throw new IllegalStateException("Refused " + key + ": the benchmark measures admitted decisions");
			}
			return true;
		}

		@Override
		public void close() {
			if (this.limiter instanceof LeasedRateLimiter leased) {
				leased.close();
			}
		}

		@Override
		public String toString() {
			return ((this.limiter instanceof LeasedRateLimiter leased)
					? "leased, batch " + leased.settings().batch() : Mode.EXACT.label()) + ", "
					+ this.limiter.policy().algorithm().id() + ", " + this.keys.label();
		}

	}

	/**
	 * Every measurement, per cell in run order.
	 */
	static final class Result {

		private final List<Integer> threads;

		private final Map<Cell, List<Measurement>> measurements = new LinkedHashMap<>();

		Result(List<Integer> threads) {
			this.threads = List.copyOf(threads);
		}

		void add(Cell cell, Measurement measurement) {
			this.measurements.computeIfAbsent(cell, (key) -> new ArrayList<>()).add(measurement);
		}

		List<Integer> threads() {
			return this.threads;
		}

		List<Measurement> of(Cell cell) {
			return this.measurements.getOrDefault(cell, List.of());
		}

		Spread spread(Cell cell, ToDoubleFunction<Measurement> value) {
			return Spread.of(of(cell).stream().map(value::applyAsDouble).toList());
		}

		Spread rate(Cell cell) {
			return spread(cell, Measurement::perSecond);
		}

		/**
		 * Script calls Redis counted per decision made.
		 */
		Spread callsPerDecision(Cell cell) {
			return spread(cell, Measurement::scriptCallsPerDecision);
		}

		/**
		 * A leased cell's decisions per second over the exact cell's, taken run by run.
		 */
		Spread leasedOverExact(Cell leased) {
			return ratio(leased, (top, bottom) -> top.perSecond() / bottom.perSecond());
		}

		/**
		 * The same ratio per client CPU-second: what it would be had both had the same CPU time.
		 */
		Spread leasedOverExactPerCpu(Cell leased) {
			return ratio(leased,
					(top, bottom) -> bottom.clientCpuMicrosPerDecision() / top.clientCpuMicrosPerDecision());
		}

		private Spread ratio(Cell leased, ToDoubleBiFunction<Measurement, Measurement> ratio) {
			return Measurement.ratios(of(leased), of(leased.exact()), ratio);
		}

		long errors() {
			return this.measurements.values().stream().flatMap(List::stream).mapToLong(Measurement::errors).sum();
		}

	}

}
