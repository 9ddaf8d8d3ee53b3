package io.github.ratelimit.benchmarks;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.ToDoubleFunction;

/**
 * The gateway cell: {@code sample-gateway} (Spring Cloud Gateway's WebFlux server) under {@code wrk}, its four
 * benchmark routes (see {@link Route}) side by side, all to one {@link Upstream}: no limiter, the gateway's own
 * {@code RequestRateLimiter} with its {@code RedisRateLimiter}, and the starter's {@code RateLimit} filter, exact and
 * leased, every limit never reached. The gateway runs with the benchmark's configuration only
 * ({@value #CONFIG}, as {@code spring.config.location}); every round runs the four routes at each connection count,
 * in an order that rotates from round to round, counting the script calls Redis received during each. Traffic goes to
 * 127.0.0.1 only.
 */
final class GatewayOverhead {

	/** The gateway's configuration, a resource of this module. */
	static final String CONFIG = "gateway-benchmark.yml";

	/** The connection counts each round measures every route at. */
	static final List<Integer> CONNECTIONS = List.of(16, 64);

	/** The gateway instances that share one Redis in the last admission runs. */
	static final int INSTANCES = 3;

	/** The leased policy, {@code bench-exact} leased. */
	static final String LEASED_POLICY = "bench-leased";

	/** The connections of the runs that count admitted requests against a limit the load reaches. */
	static final int ADMISSION_CONNECTIONS = 16;

	private static final String LOG = "gateway";

	private final String jar;

	private final OwnRedis redis;

	private final CpuPinning pinning;

	private final List<String> wrk;

	private final int threads;

	private final List<Integer> connections;

	private final int seconds;

	private final int instances;

	private final Consumer<String> log;

	GatewayOverhead(String jar, OwnRedis redis, CpuPinning pinning, List<String> wrk, int threads,
			List<Integer> connections, int seconds, int instances, Consumer<String> log) {
		this.instances = instances;
		this.jar = jar;
		this.redis = redis;
		this.pinning = pinning;
		this.wrk = wrk;
		this.threads = threads;
		this.connections = connections;
		this.seconds = seconds;
		this.log = log;
	}

	List<String> gatewayCommand(int port, String upstream, Path config) {
		List<String> command = new ArrayList<>(List.of(AppProcess.javaBin(), "-Xmx512m", "-jar", this.jar,
				"--spring.config.location=file:" + config.toAbsolutePath(), "--spring.profiles.active=benchmark",
				"--server.port=" + port, "--server.address=" + RunBenchmarks.HOST,
				"--spring.data.redis.host=" + this.redis.host(), "--spring.data.redis.port=" + this.redis.port(),
				"--sample.embedded-redis=never", "--bench.upstream=" + upstream, "--logging.level.root=WARN"));
		command.addAll(HttpOverhead.leaseArguments(LEASED_POLICY));
		return this.pinning.client(command);
	}

	/**
	 * Starts the upstream and the gateway, checks every route, warms them up, then runs the rounds.
	 * @param rounds the rounds, each measuring every route at every connection count once
	 * @param warmUps the warm-up runs of each route and connection count
	 * @return every run
	 */
	Result measure(int rounds, int warmUps) {
		Path config = writeConfig();
		try (Upstream upstream = Upstream.start(); RedisAdmin admin = new RedisAdmin(this.redis)) {
			int port = RunBenchmarks.freePort();
			String base = "http://" + RunBenchmarks.HOST + ":" + port;
			Process gateway = AppProcess.start(gatewayCommand(port, upstream.uri(), config), LOG);
			List<Process> others = new ArrayList<>();
			try {
				AppProcess.awaitUp(base + Route.UNLIMITED.path(), gateway, LOG);
				for (Route route : Route.values()) {
					int status = AppProcess.status(base + route.path());
					if (status != 200) {
						throw new IllegalStateException("The gateway answered " + status + " on route "
								+ route.path() + "; see " + AppProcess.logFile(LOG));
					}
				}
				HttpOverhead.requireLeasing(base, Route.LEASED.path(), LEASED_POLICY);
				this.log.accept("gateway: warming the routes up");
				for (int warmUp = 0; warmUp < warmUps; warmUp++) {
					for (int connections : this.connections) {
						for (Route route : Route.values()) {
							wrk(base, gateway, route, connections, -1, admin);
						}
					}
				}
				List<Run> runs = new ArrayList<>();
				for (int round = 0; round < rounds; round++) {
					List<Route> order = new ArrayList<>(List.of(Route.values()));
					Collections.rotate(order, -round);
					if (round % 2 == 1) {
						Collections.reverse(order);
					}
					for (int connections : this.connections) {
						for (Route route : order) {
							this.log.accept("gateway round " + (round + 1) + "/" + rounds + ": " + connections
									+ " connections, " + route.path());
							runs.add(wrk(base, gateway, route, connections, round, admin));
						}
					}
				}
				List<Admission> admissions = new ArrayList<>();
				for (Limited route : Limited.values()) {
					this.log.accept("gateway: admitted against the limit, " + route.path());
					WrkRun run = WrkRun.measure(wrkCommand(ADMISSION_CONNECTIONS, base + route.path()), this.seconds,
							gateway, admin, this.pinning);
					admissions.add(new Admission(route, this.seconds, false, 1, run.requests(),
							run.requests() - run.non2xx()));
				}
				for (Limited route : List.of(Limited.SCG, Limited.OURS, Limited.OURS_LOCAL)) {
					this.log.accept("gateway: admitted against the limit, Redis stopped mid-run, " + route.path());
					admissions.add(admittedThroughOutage(base, gateway, route, admin));
				}
				Map<String, Process> instances = new LinkedHashMap<>(Map.of(base, gateway));
				for (int instance = 2; instance <= this.instances; instance++) {
					int otherPort = RunBenchmarks.freePort();
					String otherBase = "http://" + RunBenchmarks.HOST + ":" + otherPort;
					others.add(AppProcess.start(gatewayCommand(otherPort, upstream.uri(), config), LOG + instance));
					instances.put(otherBase, others.get(others.size() - 1));
					AppProcess.awaitUp(otherBase + Route.UNLIMITED.path(), others.get(others.size() - 1),
							LOG + instance);
				}
				if (instances.size() > 1) {
					for (Limited route : List.of(Limited.SCG, Limited.OURS)) {
						this.log.accept("gateway: admitted against the limit, " + instances.size() + " instances, "
								+ route.path());
						admissions.add(admittedAcross(instances, route, admin));
					}
				}
				return new Result(runs, admissions);
			}
			finally {
				AppProcess.stop(gateway);
				others.forEach(AppProcess::stop);
			}
		}
		finally {
			try {
				Files.deleteIfExists(config);
			}
			catch (IOException ex) {
				// a temporary file
			}
		}
	}

	/**
	 * One run on a limited route of every instance at once, on the one Redis: one key, so one limit for them all.
	 */
	private Admission admittedAcross(Map<String, Process> instances, Limited route, RedisAdmin admin) {
		List<Thread> threads = new ArrayList<>();
		List<WrkRun> runs = Collections.synchronizedList(new ArrayList<>());
		AtomicReference<RuntimeException> failure = new AtomicReference<>();
		instances.forEach((base, gateway) -> threads.add(new Thread(() -> {
			try {
				runs.add(WrkRun.measure(wrkCommand(ADMISSION_CONNECTIONS, base + route.path()), this.seconds,
						gateway, admin, this.pinning));
			}
			catch (RuntimeException ex) {
				failure.set(ex);
			}
		}, "wrk-" + base)));
		threads.forEach(Thread::start);
		for (Thread thread : threads) {
			try {
				thread.join();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted loading the instances", ex);
			}
		}
		if (failure.get() != null) {
			throw failure.get();
		}
		long requests = runs.stream().mapToLong(WrkRun::requests).sum();
		return new Admission(route, this.seconds, false, instances.size(), requests,
				requests - runs.stream().mapToLong(WrkRun::non2xx).sum());
	}

	/**
	 * One run on a limited route while Redis is stopped for the middle third of it (then started again, empty).
	 */
	private Admission admittedThroughOutage(String base, Process gateway, Limited route, RedisAdmin admin) {
		Duration third = Duration.ofMillis(this.seconds * 1000L / 3);
		AtomicReference<RuntimeException> failure = new AtomicReference<>();
		Thread outage = new Thread(() -> {
			try {
				Thread.sleep(third.toMillis());
				this.redis.outage(third);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			catch (RuntimeException ex) {
				failure.set(ex);
			}
		}, "redis-outage");
		outage.start();
		WrkRun run = WrkRun.measure(wrkCommand(ADMISSION_CONNECTIONS, base + route.path()), this.seconds, gateway,
				admin, this.pinning);
		try {
			outage.join();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted during the Redis outage", ex);
		}
		if (failure.get() != null) {
			throw failure.get();
		}
		// the gateway's health includes Redis': up once its connections are back, before the next run
		AppProcess.awaitUp(base + "/actuator/health", gateway, LOG);
		return new Admission(route, this.seconds, true, 1, run.requests(), run.requests() - run.non2xx());
	}

	private Run wrk(String base, Process gateway, Route route, int connections, int round, RedisAdmin admin) {
		return new Run(round, connections, route, WrkRun.measure(wrkCommand(connections, base + route.path()),
				this.seconds, gateway, admin, this.pinning));
	}

	private List<String> wrkCommand(int connections, String url) {
		return WrkRun.command(this.pinning, this.wrk, this.threads, connections, this.seconds, url);
	}

	private static Path writeConfig() {
		try (InputStream resource = GatewayOverhead.class.getResourceAsStream("/" + CONFIG)) {
			if (resource == null) {
				throw new IllegalStateException("No " + CONFIG + " on the class path");
			}
			Path config = Files.createTempFile("ratelimit-benchmarks-", "-" + CONFIG);
			Files.write(config, resource.readAllBytes());
			return config;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * The routes of {@value #CONFIG}, measured side by side.
	 */
	enum Route {

		/** No limiter. */
		UNLIMITED("unlimited", "no limiter"),

		/** {@code RequestRateLimiter} with the gateway's {@code RedisRateLimiter}. */
		SCG("scg", "the gateway's `RequestRateLimiter`, `RedisRateLimiter`"),

		/** {@code RateLimit=bench-exact}. */
		EXACT("exact", "ours, `RateLimit=bench-exact` (exact)"),

		/** {@code RateLimit=bench-leased}. */
		LEASED("leased", "ours, `RateLimit=bench-leased` (leased)");

		private final String id;

		private final String label;

		Route(String id, String label) {
			this.id = id;
			this.label = label;
		}

		/**
		 * The path wrk requests.
		 * @return the path
		 */
		String path() {
			return "/bench/" + this.id + "/hello";
		}

		String label() {
			return this.label;
		}

	}

	/**
	 * The routes of {@value #CONFIG} whose limits the load reaches, each limiter with the same token bucket as its
	 * counterpart.
	 */
	enum Limited {

		/** The gateway's {@code RedisRateLimiter}, burst 20, 10 per second. */
		SCG("scg", "the gateway's `RedisRateLimiter`, burst 20, 10/s", 20, 10),

		/** Ours, {@code 20/2s}. */
		OURS("ours", "ours, `20/2s`", 20, 10),

		/** Ours, {@code 20/2s}, {@code failure-mode: local}. */
		OURS_LOCAL("ours-local", "ours, `20/2s`, `failure-mode: local`", 20, 10),

		/** The gateway's {@code RedisRateLimiter}, burst 40, 100 per second: its keys' TTL is 0. */
		SCG_SHORT("scg-short", "the gateway's `RedisRateLimiter`, burst 40, 100/s (TTL 0)", 40, 100),

		/** Ours, {@code 40/400ms}. */
		OURS_SHORT("ours-short", "ours, `40/400ms`", 40, 100);

		private final String id;

		private final String label;

		private final long burst;

		private final long perSecond;

		Limited(String id, String label, long burst, long perSecond) {
			this.id = id;
			this.label = label;
			this.burst = burst;
			this.perSecond = perSecond;
		}

		String path() {
			return "/limit/" + this.id + "/hello";
		}

		String label() {
			return this.label;
		}

		/**
		 * The most a token bucket of this size admits over a run from full: the burst plus the refill.
		 * @param seconds the run's length
		 * @return the requests
		 */
		long limit(int seconds) {
			return this.burst + this.perSecond * seconds;
		}

	}

	/**
	 * Requests admitted on a route whose limit the load reaches, over one wrk run.
	 *
	 * @param route the route
	 * @param seconds the run's length
	 * @param redisStopped whether Redis was stopped for the middle third of the run
	 * @param instances the gateway instances loaded at once, each by a wrk of its own
	 * @param requests the requests wrk completed, over every instance
	 * @param admitted those answered 2xx or 3xx
	 */
	record Admission(Limited route, int seconds, boolean redisStopped, int instances, long requests,
			long admitted) {

		double overLimit() {
			return this.admitted / (double) this.route.limit(this.seconds);
		}

	}

	/**
	 * One wrk run of one route.
	 *
	 * @param round the round, from 0 (-1 for a warm-up)
	 * @param connections wrk's connections
	 * @param route the route
	 * @param wrk what it measured
	 */
	record Run(int round, int connections, Route route, WrkRun wrk) {

	}

	/**
	 * Every measured run, in the order run, and the admissions on the routes whose limits the load reaches.
	 *
	 * @param runs the runs
	 * @param admissions the admissions, one per limited route
	 */
	record Result(List<Run> runs, List<Admission> admissions) {

		Spread spread(Route route, int connections, ToDoubleFunction<WrkRun> value) {
			return Spread.of(this.runs.stream()
				.filter((run) -> run.route() == route && run.connections() == connections)
				.map((run) -> value.applyAsDouble(run.wrk()))
				.toList());
		}

		/**
		 * One route's requests per second over another's at one connection count, round by round.
		 */
		Spread ratio(Route route, Route other, int connections) {
			List<Double> ratios = new ArrayList<>();
			for (int round : this.runs.stream().map(Run::round).distinct().sorted().toList()) {
				ratios.add(run(round, route, connections).requestsPerSecond()
						/ run(round, other, connections).requestsPerSecond());
			}
			return Spread.of(ratios);
		}

		List<Integer> connections() {
			return this.runs.stream().map(Run::connections).distinct().toList();
		}

		long non2xx() {
			return this.runs.stream().mapToLong((run) -> run.wrk().non2xx()).sum();
		}

		private WrkRun run(int round, Route route, int connections) {
			return this.runs.stream()
				.filter((run) -> run.round() == round && run.route() == route && run.connections() == connections)
				.findFirst()
				.orElseThrow()
				.wrk();
		}

	}

}
