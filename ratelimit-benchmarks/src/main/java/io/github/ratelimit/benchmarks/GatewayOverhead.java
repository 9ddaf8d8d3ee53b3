package io.github.ratelimit.benchmarks;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
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

	/** The leased policy, {@code bench-exact} leased. */
	static final String LEASED_POLICY = "bench-leased";

	private static final String LOG = "gateway";

	private final String jar;

	private final OwnRedis redis;

	private final CpuPinning pinning;

	private final int threads;

	private final List<Integer> connections;

	private final int seconds;

	private final Consumer<String> log;

	GatewayOverhead(String jar, OwnRedis redis, CpuPinning pinning, int threads, List<Integer> connections,
			int seconds, Consumer<String> log) {
		this.jar = jar;
		this.redis = redis;
		this.pinning = pinning;
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
				return new Result(runs);
			}
			finally {
				AppProcess.stop(gateway);
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

	private Run wrk(String base, Process gateway, Route route, int connections, int round, RedisAdmin admin) {
		return new Run(round, connections, route, WrkRun.measure(WrkRun.command(this.pinning, this.threads,
				connections, this.seconds, base + route.path()), this.seconds, gateway, admin, this.pinning));
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
	 * Every measured run, in the order run.
	 *
	 * @param runs the runs
	 */
	record Result(List<Run> runs) {

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
