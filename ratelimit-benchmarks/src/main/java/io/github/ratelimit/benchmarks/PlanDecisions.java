package io.github.ratelimit.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.ToDoubleBiFunction;

import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.core.Limit;
import io.github.ratelimit.core.Policy;
import io.github.ratelimit.core.resilience.CircuitBreaker;
import io.github.ratelimit.core.resilience.DenyCache;
import io.github.ratelimit.redis.RedisClientOverrides;
import io.github.ratelimit.redis.RedisRateLimiterBackend;
import io.github.ratelimit.spring.FailureMode;
import io.github.ratelimit.spring.PlanResolver;
import io.github.ratelimit.spring.PolicyDefinition;
import io.github.ratelimit.spring.PolicyPlan;
import io.github.ratelimit.spring.RateLimitEnforcer;
import io.github.ratelimit.spring.RateLimitOutcome;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;

import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Decisions per second of the enforcer path (what the servlet filter's chain calls: the client's plan, then
 * {@link RateLimitEnforcer#enforceAsync}, waited for) for a plain policy, a policy with two plans picked by a {@link PlanResolver}, and
 * clients with an override in force, side by side on one enforcer and one Redis backend, as the starter wires them;
 * and a plain policy on a second enforcer whose decisions are observed as Actuator configures the observation
 * registry without tracing (Micrometer's {@code DefaultMeterObservationHandler} on a meter registry), against the
 * first one's {@code ObservationRegistry.NOOP}.
 * The overrides are the Redis store's ({@code RedisClientOverrides}, polling every 500 ms as shipped): a decision reads
 * this instance's copy, so the store's writes and refreshes are not on the decision's path.
 */
final class PlanDecisions {

	/** Every limit is out of the load's reach, as in the decision benchmarks, so that every decision is admitted. */
	private static final String FREE = OurLimiter.LIMIT;

	private static final String PRO = "200000/100d";

	private static final String OVERRIDE = "300000/100d";

	private PlanDecisions() {
	}

	/**
	 * Measures the three paths, in an order that rotates from run to run.
	 * @param server the Redis server
	 * @param admin an admin connection to it
	 * @param load the timed loop
	 * @param threads the client threads of each cell
	 * @param runs how many times every cell is measured
	 * @param prime whether every client's keys are written once before anything is measured
	 * @param log progress
	 * @return every measurement
	 */
	static Result measure(OwnRedis server, RedisAdmin admin, DecisionLoad load, List<Integer> threads, int runs,
			boolean prime, Consumer<String> log) {
		try (OurBackend ours = new OurBackend(server)) {
			RedisRateLimiterBackend backend = ours.backend();
			String[] clients = OurLimiter.clients();
			PolicyDefinition overridden = plain(backend, "overridden", FREE);
			RedisClientOverrides overrides = overrides(ours, overridden.name(), clients);
			RateLimitEnforcer enforcer = new RateLimitEnforcer(List.of(), backend, new CircuitBreaker(),
					new DenyCache(DenyCache.DEFAULT_MAXIMUM_CLIENTS, DenyCache.DEFAULT_MAX_AGE), 1);
			enforcer.applyOverrides(overrides, clients.length);
			PolicyDefinition planned = withPlans(backend, clients);
			decidedUnder(enforcer, planned, clients[0], "pro");
			decidedUnder(enforcer, planned, clients[1], "free");
			decidedUnder(enforcer, overridden, clients[0], PolicyPlan.OVERRIDE);
			Map<Path, Contender> paths = new EnumMap<>(Path.class);
			paths.put(Path.PLAIN, new Enforced(enforcer, plain(backend, "plain", FREE), clients));
			paths.put(Path.PLANS, new Enforced(enforcer, planned, clients));
			paths.put(Path.OVERRIDE, new Enforced(enforcer, overridden, clients));
			RateLimitEnforcer observed = new RateLimitEnforcer(List.of(), backend, new CircuitBreaker(),
					new DenyCache(DenyCache.DEFAULT_MAXIMUM_CLIENTS, DenyCache.DEFAULT_MAX_AGE), 1);
			SimpleMeterRegistry meters = new SimpleMeterRegistry();
			observed.observeWith(meteredObservations(meters), null);
			PolicyDefinition observedPolicy = plain(backend, "observed", FREE);
			observedAsTimer(observed, observedPolicy, clients[0], meters);
			paths.put(Path.OBSERVED, new Enforced(observed, observedPolicy, clients));
			if (prime) {
				log.accept("plans and overrides: writing every client's keys once");
				paths.values().forEach(DecisionBenchmark::prime);
			}
			Result result = new Result(threads);
			for (int run = 0; run < runs; run++) {
				for (int threadCount : threads) {
					List<Path> order = new ArrayList<>(List.of(Path.values()));
					Collections.rotate(order, -run);
					for (Path path : order) {
						log.accept("run " + (run + 1) + "/" + runs + ": enforcer, " + path.label() + ", "
								+ MissNotes.threads(threadCount));
						result.add(path, threadCount, load.run(paths.get(path), threadCount, admin));
					}
				}
			}
			overrides.close();
			return result;
		}
	}

	/**
	 * The Redis store of overrides, as the starter wires it (polled every 500 ms), holding an override of every client:
	 * written into its hash in one command, as many operator requests would have left it, then loaded.
	 */
	private static RedisClientOverrides overrides(OurBackend ours, String policy, String[] clients) {
		RedisClientOverrides overrides = new RedisClientOverrides(ours.connectionFactory(), OurLimiter.KEY_PREFIX,
				Duration.ofMillis(500), clients.length);
		Map<String, String> entries = new LinkedHashMap<>();
		String setAt = Long.toString(System.currentTimeMillis());
		for (String client : clients) {
			entries.put(policy.length() + ":" + policy + client, OVERRIDE + "|0|" + setAt + "|benchmark");
		}
		entries.put("#version", "1");
		StringRedisTemplate redis = new StringRedisTemplate(ours.connectionFactory());
		redis.opsForHash().putAll(overrides.key(), entries);
		overrides.start(Duration.ofSeconds(5));
		return overrides;
	}

	/**
	 * An observation registry as Actuator configures it without tracing: each observation becomes a timer and a long
	 * task timer on a meter registry.
	 */
	private static ObservationRegistry meteredObservations(MeterRegistry meters) {
		ObservationRegistry observations = ObservationRegistry.create();
		observations.observationConfig().observationHandler(new DefaultMeterObservationHandler(meters));
		return observations;
	}

	/**
	 * Fails the benchmark unless a decision of the observed enforcer is recorded by its meter handler (as timer
	 * {@code ratelimit.decision}): it would otherwise measure no observation at all.
	 */
	private static void observedAsTimer(RateLimitEnforcer enforcer, PolicyDefinition policy, String client,
			MeterRegistry meters) {
		enforcer.enforceAsync(policy, policy.defaultPlan(), client, policy.defaultPlan().cost()).toCompletableFuture()
			.join();
		Timer timer = meters.find("ratelimit.decision").tag("policy", policy.name()).timer();
		if (timer == null || timer.count() != 1) {
			throw new IllegalStateException("A decision of policy '" + policy.name() + "' was not observed as timer "
					+ "ratelimit.decision: the benchmark would measure another path");
		}
	}

	/**
	 * Fails the benchmark unless a client is decided under the plan it is meant to measure.
	 */
	private static void decidedUnder(RateLimitEnforcer enforcer, PolicyDefinition policy, String client,
			String plan) {
		String decided = enforcer.planFor(policy, client, null).toCompletableFuture().join().plan();
		if (!plan.equals(decided)) {
			throw new IllegalStateException("Client " + client + " of policy '" + policy.name()
					+ "' is decided under plan '" + decided + "', not '" + plan + "': the benchmark would measure "
					+ "another path");
		}
	}

	private static PolicyDefinition plain(RedisRateLimiterBackend backend, String name, String limit) {
		Policy policy = Policy.of(name, Algorithm.TOKEN_BUCKET, limit);
		return PolicyDefinition.of(policy, backend.create(policy), "ip", (request) -> null, List.of(), List.of(),
				Set.of(), 1, FailureMode.OPEN, false);
	}

	/**
	 * A policy with plans {@code free} (the default) and {@code pro}, every other client on each, picked by a resolver
	 * that looks the client up in a map, as one that caches a customer table would.
	 */
	private static PolicyDefinition withPlans(RedisRateLimiterBackend backend, String[] clients) {
		Map<String, String> planOfClient = new HashMap<>();
		for (int i = 0; i < clients.length; i++) {
			planOfClient.put(clients[i], (i % 2 == 0) ? "pro" : "free");
		}
		PlanResolver resolver = (key, request) -> planOfClient.get(key);
		Policy policy = Policy.of("planned", Algorithm.TOKEN_BUCKET, FREE);
		Map<String, PolicyPlan> plans = new LinkedHashMap<>();
		plans.put("free", plan(backend, policy.withPlan("free", Algorithm.TOKEN_BUCKET, List.of(Limit.parse(FREE)))));
		plans.put("pro", plan(backend, policy.withPlan("pro", Algorithm.TOKEN_BUCKET, List.of(Limit.parse(PRO)))));
		return PolicyDefinition.withPlans("planned", "ip", (request) -> null, List.of(), List.of(), Set.of(),
				FailureMode.OPEN, false, "bean:planOfClient", resolver, plans, "free");
	}

	private static PolicyPlan plan(RedisRateLimiterBackend backend, Policy policy) {
		return new PolicyPlan(policy, backend.create(policy), 1);
	}

	/**
	 * The paths measured.
	 */
	enum Path {

		/** A policy without plans, no client overridden. */
		PLAIN("plain policy"),

		/** A policy with two plans, a {@link PlanResolver} picking each client's. */
		PLANS("two plans and a PlanResolver"),

		/** A policy without plans, every client with an override in force. */
		OVERRIDE("override in force"),

		/** A policy without plans, each decision observed by a meter handler, no tracing. */
		OBSERVED("observed (meter handler, no tracing)");

		private final String label;

		Path(String label) {
			this.label = label;
		}

		String label() {
			return this.label;
		}

	}

	/**
	 * One path as the filter takes it: the client's plan, then the enforcer.
	 */
	private record Enforced(RateLimitEnforcer enforcer, PolicyDefinition policy, String[] clients)
			implements Contender {

		@Override
		public boolean decide(int client) {
			String key = this.clients[client];
			PolicyPlan plan = this.policy.planForAsync(key, null).toCompletableFuture().join();
			return this.enforcer.enforceAsync(this.policy, plan, key, plan.cost()).toCompletableFuture().join().kind()
					== RateLimitOutcome.Kind.ALLOWED;
		}

		@Override
		public void close() {
		}

		@Override
		public String toString() {
			return "enforcer, " + this.policy.name();
		}

	}

	/**
	 * Every measurement, per path and thread count in run order.
	 */
	static final class Result {

		private final List<Integer> threads;

		private final Map<Path, Map<Integer, List<Measurement>>> measurements = new EnumMap<>(Path.class);

		Result(List<Integer> threads) {
			this.threads = List.copyOf(threads);
		}

		void add(Path path, int threads, Measurement measurement) {
			this.measurements.computeIfAbsent(path, (key) -> new LinkedHashMap<>())
				.computeIfAbsent(threads, (key) -> new ArrayList<>())
				.add(measurement);
		}

		List<Integer> threads() {
			return this.threads;
		}

		List<Measurement> of(Path path, int threads) {
			return this.measurements.getOrDefault(path, Map.of()).getOrDefault(threads, List.of());
		}

		Spread rate(Path path, int threads) {
			return Spread.of(of(path, threads).stream().map(Measurement::perSecond).toList());
		}

		Spread clientCpuMicros(Path path, int threads) {
			return Spread.of(of(path, threads).stream().map(Measurement::clientCpuMicrosPerDecision).toList());
		}

		/**
		 * A path's decisions per second over the plain policy's, taken run by run.
		 */
		Spread ratio(Path path, int threads) {
			return ratio(path, threads, (top, bottom) -> top.perSecond() / bottom.perSecond());
		}

		/**
		 * The same ratio per client CPU-second: what it would be had both had the same CPU time.
		 */
		Spread cpuRatio(Path path, int threads) {
			return ratio(path, threads,
					(top, bottom) -> bottom.clientCpuMicrosPerDecision() / top.clientCpuMicrosPerDecision());
		}

		private Spread ratio(Path path, int threads, ToDoubleBiFunction<Measurement, Measurement> ratio) {
			return Measurement.ratios(of(path, threads), of(Path.PLAIN, threads), ratio);
		}

		long errors() {
			return this.measurements.values().stream().flatMap((cells) -> cells.values().stream())
				.flatMap(List::stream).mapToLong(Measurement::errors).sum();
		}

	}

}
