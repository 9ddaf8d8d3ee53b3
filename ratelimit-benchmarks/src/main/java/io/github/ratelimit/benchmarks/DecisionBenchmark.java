package io.github.ratelimit.benchmarks;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.ToDoubleBiFunction;
import java.util.function.ToDoubleFunction;
import java.util.stream.IntStream;

import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.core.Policy;
import io.github.ratelimit.redis.PlainLettuceLimiter;
import org.jspecify.annotations.Nullable;

/**
 * Decisions per second of every contender, per algorithm and thread count, in several runs. Within a run the
 * contenders of one algorithm and thread count are measured one right after the other, and their order rotates from
 * run to run, so that the machine's drifts hit them alike; ratios are taken within a run, then their median.
 */
final class DecisionBenchmark {

	/** The client threads of the decision benchmarks. */
	static final List<Integer> THREADS = List.of(1, 16, 64);

	private static final int PRIMING_THREADS = 16;

	private final OwnRedis redis;

	private final RedisAdmin admin;

	private final DecisionLoad load;

	private final List<Integer> threads;

	private final @Nullable RedisBenchmarkTool redisBenchmark;

	private final boolean prime;

	private final Consumer<String> log;

	DecisionBenchmark(OwnRedis redis, RedisAdmin admin, DecisionLoad load, List<Integer> threads,
			@Nullable RedisBenchmarkTool redisBenchmark, boolean prime, Consumer<String> log) {
		this.redis = redis;
		this.admin = admin;
		this.load = load;
		this.threads = threads;
		this.redisBenchmark = redisBenchmark;
		this.prime = prime;
		this.log = log;
	}

	/**
	 * Opens every contender, writes every key once, then measures.
	 * @param runs how many times every cell is measured
	 * @return every measurement
	 */
	Decisions run(int runs) {
		Map<Algorithm, Contender> ours = new EnumMap<>(Algorithm.class);
		Map<Algorithm, Contender> plain = new EnumMap<>(Algorithm.class);
		Bucket4jLimiter bucket4j = null;
		try {
			for (Algorithm algorithm : Algorithm.values()) {
				Policy policy = OurLimiter.policy(algorithm, OurLimiter.limit(algorithm));
				ours.put(algorithm, new OurLimiter(this.redis, policy));
				plain.put(algorithm, new PlainLettuceLimiter(this.redis.host(), this.redis.port(),
						OurLimiter.KEY_PREFIX, policy, OurLimiter.clients()));
				if (this.redisBenchmark != null && this.prime) {
					try (Contender randomClients = new PlainLettuceLimiter(this.redis.host(), this.redis.port(),
							OurLimiter.KEY_PREFIX, policy, RedisBenchmarkTool.clients())) {
						prime(randomClients);
					}
				}
			}
			bucket4j = new Bucket4jLimiter(this.redis);
			if (this.prime) {
				this.log.accept("writing every client's keys once (and warming the JIT up)");
				for (Algorithm algorithm : Algorithm.values()) {
					prime(ours.get(algorithm));
					prime(plain.get(algorithm));
				}
				prime(bucket4j);
			}
			Decisions results = new Decisions(this.threads);
			for (int run = 0; run < runs; run++) {
				for (int threadCount : this.threads) {
					for (Algorithm algorithm : Algorithm.values()) {
						List<Kind> kinds = kinds(algorithm);
						Collections.rotate(kinds, -run);
						for (Kind kind : kinds) {
							this.log.accept("run " + (run + 1) + "/" + runs + ": " + kind.label() + ", "
									+ algorithm.id() + ", " + MissNotes.threads(threadCount));
							Measurement measurement = switch (kind) {
								case OURS -> this.load.run(ours.get(algorithm), threadCount, this.admin);
								case PLAIN_LETTUCE -> this.load.run(plain.get(algorithm), threadCount, this.admin);
								case BUCKET4J -> this.load.run(bucket4j, threadCount, this.admin);
								case REDIS_BENCHMARK -> this.redisBenchmark.run(
										OurLimiter.policy(algorithm, OurLimiter.limit(algorithm)), threadCount,
										this.load.measure().toMillis() / 1000.0, this.admin);
							};
							results.add(new Cell(kind, algorithm, threadCount), measurement);
						}
					}
				}
			}
			return results;
		}
		finally {
			ours.values().forEach(Contender::close);
			plain.values().forEach(Contender::close);
			if (bucket4j != null) {
				bucket4j.close();
			}
		}
	}

	private List<Kind> kinds(Algorithm algorithm) {
		List<Kind> kinds = new ArrayList<>(List.of(Kind.OURS, Kind.PLAIN_LETTUCE));
		if (algorithm == Algorithm.TOKEN_BUCKET) {
			kinds.add(Kind.BUCKET4J);
		}
		if (this.redisBenchmark != null) {
			kinds.add(Kind.REDIS_BENCHMARK);
		}
		return kinds;
	}

	/**
	 * Decides once for every client, from several threads.
	 */
	static void prime(Contender contender) {
		IntStream.range(0, PRIMING_THREADS).mapToObj((slice) -> {
			Thread thread = new Thread(() -> {
				for (int client = slice; client < DecisionLoad.KEYS; client += PRIMING_THREADS) {
					contender.decide(client);
				}
			}, "priming-" + slice);
			thread.start();
			return thread;
		}).toList().forEach((thread) -> {
			try {
				thread.join();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted while priming " + contender, ex);
			}
		});
	}

	/**
	 * The contenders.
	 */
	enum Kind {

		/** Our {@code RedisRateLimiterBackend}. */
		OURS("ours"),

		/** Plain Lettuce sending our very script: the floor of our client code. */
		PLAIN_LETTUCE("plain Lettuce, our script"),

		/** Bucket4j's Lettuce proxy manager (compare-and-swap), token bucket only. */
		BUCKET4J("Bucket4j (Lettuce CAS)"),

		/** redis-benchmark sending our very script. */
		REDIS_BENCHMARK("redis-benchmark, our script");

		private final String label;

		Kind(String label) {
			this.label = label;
		}

		String label() {
			return this.label;
		}

	}

	/**
	 * One contender, algorithm and thread count (connections, for redis-benchmark).
	 *
	 * @param kind the contender
	 * @param algorithm the algorithm (Bucket4j's is a token bucket)
	 * @param threads the client threads
	 */
	record Cell(Kind kind, Algorithm algorithm, int threads) {

	}

	/**
	 * Every measurement, per cell in run order.
	 */
	static final class Decisions {

		private final List<Integer> threads;

		private final Map<Cell, List<Measurement>> measurements = new LinkedHashMap<>();

		Decisions(List<Integer> threads) {
			this.threads = List.copyOf(threads);
		}

		void add(Cell cell, Measurement measurement) {
			this.measurements.computeIfAbsent(cell, (key) -> new ArrayList<>()).add(measurement);
		}

		List<Integer> threads() {
			return this.threads;
		}

		boolean has(Kind kind) {
			return this.measurements.keySet().stream().anyMatch((cell) -> cell.kind() == kind);
		}

		List<Measurement> of(Kind kind, Algorithm algorithm, int threads) {
			return this.measurements.getOrDefault(new Cell(kind, algorithm, threads), List.of());
		}

		/**
		 * A value of one cell over the runs.
		 */
		Spread spread(Kind kind, Algorithm algorithm, int threads, ToDoubleFunction<Measurement> value) {
			return Spread.of(of(kind, algorithm, threads).stream().map(value::applyAsDouble).toList());
		}

		/**
		 * A value of every cell of one contender and algorithm, all thread counts and runs together.
		 */
		Spread spread(Kind kind, Algorithm algorithm, ToDoubleFunction<Measurement> value) {
			return Spread.of(this.threads.stream()
				.flatMap((count) -> of(kind, algorithm, count).stream())
				.map(value::applyAsDouble)
				.toList());
		}

		Spread rate(Kind kind, Algorithm algorithm, int threads) {
			return spread(kind, algorithm, threads, Measurement::perSecond);
		}

		/**
		 * The ratio of two cells' decisions per second, taken run by run.
		 */
		Spread ratio(Cell numerator, Cell denominator) {
			return ratio(numerator, denominator, (top, bottom) -> top.perSecond() / bottom.perSecond());
		}

		/**
		 * The ratio of two cells' decisions per client CPU-second, taken run by run: what the rates' ratio would be
		 * if both had had the same CPU time, whatever other processes took from either.
		 */
		Spread cpuRatio(Cell numerator, Cell denominator) {
			return ratio(numerator, denominator,
					(top, bottom) -> bottom.clientCpuMicrosPerDecision() / top.clientCpuMicrosPerDecision());
		}

		private Spread ratio(Cell numerator, Cell denominator, ToDoubleBiFunction<Measurement, Measurement> ratio) {
			return Measurement.ratios(of(numerator.kind(), numerator.algorithm(), numerator.threads()),
					of(denominator.kind(), denominator.algorithm(), denominator.threads()), ratio);
		}

		long errors() {
			return this.measurements.values().stream().flatMap(List::stream).mapToLong(Measurement::errors).sum();
		}

		/**
		 * Redis' time inside one script call of an algorithm, over all of one contender's cells of a run, then the
		 * median over the runs.
		 */
		Spread usecPerScriptCall(Kind kind, Algorithm algorithm) {
			return Spread.of(perRun(kind, algorithm, (deltas) -> {
				long calls = deltas.stream().mapToLong(RedisStats.Delta::scriptCalls).sum();
				long usec = deltas.stream().mapToLong((delta) -> delta.usec("evalsha") + delta.usec("eval")).sum();
				return usec / (double) calls;
			}));
		}

		/**
		 * Per command a script calls, microseconds per script call over all of one contender's cells of a run, the
		 * median over the runs.
		 */
		Map<String, Spread> usecByCommand(Kind kind, Algorithm algorithm) {
			Map<String, List<Double>> values = new LinkedHashMap<>();
			int runs = runs(kind, algorithm);
			for (int run = 0; run < runs; run++) {
				List<RedisStats.Delta> deltas = deltas(kind, algorithm, run);
				long calls = deltas.stream().mapToLong(RedisStats.Delta::scriptCalls).sum();
				Map<String, Long> usec = new LinkedHashMap<>();
				for (RedisStats.Delta delta : deltas) {
					delta.commands().forEach((name, command) -> {
						if (!name.equals("evalsha") && !name.equals("eval") && !name.startsWith("info")) {
							usec.merge(name, command.usec(), Long::sum);
						}
					});
				}
				usec.forEach((name, total) -> values.computeIfAbsent(name, (key) -> new ArrayList<>())
					.add(total / (double) calls));
			}
			Map<String, Spread> spreads = new LinkedHashMap<>();
			values.forEach((name, list) -> spreads.put(name, Spread.of(list)));
			return spreads;
		}

		private List<Double> perRun(Kind kind, Algorithm algorithm,
				Function<List<RedisStats.Delta>, Double> value) {
			List<Double> values = new ArrayList<>();
			for (int run = 0; run < runs(kind, algorithm); run++) {
				values.add(value.apply(deltas(kind, algorithm, run)));
			}
			return values;
		}

		private int runs(Kind kind, Algorithm algorithm) {
			return this.threads.stream().mapToInt((count) -> of(kind, algorithm, count).size()).min().orElse(0);
		}

		private List<RedisStats.Delta> deltas(Kind kind, Algorithm algorithm, int run) {
			List<RedisStats.Delta> deltas = new ArrayList<>();
			for (int count : this.threads) {
				RedisStats.Delta delta = of(kind, algorithm, count).get(run).redis();
				if (delta != null) {
					deltas.add(delta);
				}
			}
			return deltas;
		}

	}

}
