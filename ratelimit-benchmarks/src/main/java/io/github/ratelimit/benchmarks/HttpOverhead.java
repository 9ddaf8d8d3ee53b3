package io.github.ratelimit.benchmarks;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.ToDoubleFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;

/**
 * The HTTP cost of the filter: the sample apps under {@code wrk}, their limited {@code /api/hello} (with a limit never
 * reached) against their unlimited {@code /api/unlimited}. Five sample apps run side by side (see {@link SampleApp}):
 * the servlet sample as shipped (Spring Boot observes every Lettuce command), the servlet sample with
 * {@code LettuceObservationAutoConfiguration} excluded, the WebFlux sample as shipped, and the servlet and WebFlux
 * samples as shipped with policy {@code hello} leased; every round runs the ten (app, path) pairs one after the other
 * ({@link #order}), counting the script calls Redis received during each. Traffic goes to 127.0.0.1 only.
 */
final class HttpOverhead {

	/** The limited path's limit, never reached. */
	static final String LIMIT = "1000000000/1h";

	/** Spring Boot's auto-configuration that observes every Lettuce command (spring-boot-data-redis 4.0.7). */
	static final String LETTUCE_OBSERVATION = "org.springframework.boot.data.redis.autoconfigure.observation."
			+ "LettuceObservationAutoConfiguration";

	/**
	 * How long each leased app's limited path is warmed up on top of the warm-up runs: its renewal path (a Redis call
	 * per lease, about one per hundred requests) runs a hundredth as often as the exact apps' and is still being
	 * compiled by the JIT after the warm-up runs (its C2 compiler threads then took several µs per request).
	 */
	static final int LEASED_WARM_UP_SECONDS = 90;

	/** The meter of decisions served from a lease, which only a leased policy has. */
	static final String LEASE_METER = "ratelimit.lease.hits";

	private static final Pattern METER_NAME = Pattern.compile("\"([^\"]+)\"");

	private final Jars jars;

	private final OwnRedis redis;

	private final CpuPinning pinning;

	private final int threads;

	private final int connections;

	private final int seconds;

	private final Consumer<String> log;

	HttpOverhead(Jars jars, OwnRedis redis, CpuPinning pinning, int threads, int connections, int seconds,
			Consumer<String> log) {
		this.jars = jars;
		this.redis = redis;
		this.pinning = pinning;
		this.threads = threads;
		this.connections = connections;
		this.seconds = seconds;
		this.log = log;
	}

	List<String> sampleCommand(int port, SampleApp app) {
		List<String> command = new ArrayList<>(List.of(AppProcess.javaBin(), "-Xmx512m", "-jar", this.jars.of(app),
				"--server.port=" + port, "--server.address=127.0.0.1", "--spring.data.redis.host=" + this.redis.host(),
				"--spring.data.redis.port=" + this.redis.port(), "--sample.embedded-redis=never",
				"--ratelimit.policies.hello.limits=" + LIMIT, "--logging.level.root=WARN"));
		if (!app.observed()) {
			command.add("--spring.autoconfigure.exclude=" + LETTUCE_OBSERVATION);
		}
		if (app.leased()) {
			command.addAll(leaseArguments());
		}
		return this.pinning.client(command);
	}

	/**
	 * The arguments that lease policy {@code hello}, as {@link LeaseDecisions#LEASE} leases.
	 * @return the arguments
	 */
	static List<String> leaseArguments() {
		return leaseArguments("hello");
	}

	/**
	 * The arguments that lease a policy, as {@link LeaseDecisions#LEASE} leases.
	 * @param policy the policy
	 * @return the arguments
	 */
	static List<String> leaseArguments(String policy) {
		String lease = "--ratelimit.policies." + policy + ".lease.";
		return List.of(lease + "enabled=true", lease + "batch=" + LeaseDecisions.LEASE.batch(),
				lease + "adaptive=" + LeaseDecisions.LEASE.adaptive(),
				lease + "max-age=" + LeaseDecisions.LEASE.maxAge().toMillis() + "ms");
	}

	List<String> wrkCommand(String url) {
		return WrkRun.command(this.pinning, WrkRun.WRK, this.threads, this.connections, this.seconds, url);
	}

	String wrkOptions() {
		return "-t" + this.threads + " -c" + this.connections + " -d" + this.seconds + "s --latency";
	}

	/**
	 * Starts the sample apps, warms each of their paths up, then runs the rounds.
	 * @param rounds the rounds, each measuring every (app, path) pair once
	 * @param warmUps the warm-up runs of each pair
	 * @return every run
	 */
	Result measure(int rounds, int warmUps) {
		Map<SampleApp, Process> apps = new EnumMap<>(SampleApp.class);
		Map<SampleApp, String> bases = new EnumMap<>(SampleApp.class);
		try (RedisAdmin admin = new RedisAdmin(this.redis)) {
			// one after the other: they start on the one client CPU
			for (SampleApp app : SampleApp.values()) {
				int port = RunBenchmarks.freePort();
				apps.put(app, start(port, app));
				bases.put(app, "http://127.0.0.1:" + port);
				AppProcess.awaitUp(bases.get(app) + "/api/unlimited", apps.get(app), logName(app));
				if (app.leased()) {
					requireLeasing(bases.get(app), path(true), "hello");
				}
			}
			List<Variant> variants = new ArrayList<>();
			for (SampleApp app : SampleApp.values()) {
				variants.add(new Variant(app, false, false));
				variants.add(new Variant(app, true, false));
			}
			this.log.accept("HTTP: warming the sample apps up");
			for (int warmUp = 0; warmUp < warmUps; warmUp++) {
				for (Variant variant : variants) {
					wrk(bases.get(variant.app()), apps.get(variant.app()), variant, -1, admin);
				}
			}
			for (SampleApp app : SampleApp.values()) {
				if (app.leased()) {
					this.log.accept("HTTP: warming " + app.label() + " up on " + path(true) + " for "
							+ LEASED_WARM_UP_SECONDS + " s");
					WrkRun.measure(WrkRun.command(this.pinning, WrkRun.WRK, this.threads, this.connections,
							LEASED_WARM_UP_SECONDS, bases.get(app) + path(true)), LEASED_WARM_UP_SECONDS,
							apps.get(app), admin, this.pinning);
				}
			}
			Map<SampleApp, List<String>> meters = new EnumMap<>(SampleApp.class);
			for (SampleApp app : SampleApp.values()) {
				meters.put(app, lettuceMeters(bases.get(app)));
			}
			List<Run> runs = new ArrayList<>();
			for (int round = 0; round < rounds; round++) {
				for (Variant variant : order(round)) {
					this.log.accept("HTTP round " + (round + 1) + "/" + rounds + ": " + variant.app().label() + ", "
							+ path(variant.limited()) + (variant.measured() ? "" : " (settling, not measured)"));
					Run run = wrk(bases.get(variant.app()), apps.get(variant.app()), variant, round, admin);
					if (variant.measured()) {
						runs.add(run);
					}
				}
			}
			return new Result(runs, meters);
		}
		finally {
			apps.values().forEach(AppProcess::stop);
		}
	}

	/**
	 * The runs of a round, in the order run: app by app, in an order that rotates from round to round, each app's
	 * runs one right after the other: first a run not measured, which takes the hit of switching from the app before
	 * (its first seconds run measurably slower than the next), then its two paths as A, B, B, A (so that the ratio of
	 * one app's paths compares runs as close in time as can be, and a speed that drifts during them weighs on both
	 * paths alike), path A the limited one in even rounds and the unlimited one in odd ones.
	 * @param round the round, from 0
	 * @return the runs
	 */
	static List<Variant> order(int round) {
		List<SampleApp> apps = new ArrayList<>(List.of(SampleApp.values()));
		Collections.rotate(apps, -round);
		boolean limitedFirst = round % 2 == 0;
		List<Variant> order = new ArrayList<>();
		for (SampleApp app : apps) {
			order.add(new Variant(app, limitedFirst, false));
			order.add(new Variant(app, limitedFirst, true));
			order.add(new Variant(app, !limitedFirst, true));
			order.add(new Variant(app, !limitedFirst, true));
			order.add(new Variant(app, limitedFirst, true));
		}
		return order;
	}

	private Process start(int port, SampleApp app) {
		return AppProcess.start(sampleCommand(port, app), logName(app));
	}

	private static String logName(SampleApp app) {
		return "sample-" + app.name().toLowerCase(Locale.ROOT).replace('_', '-');
	}

	private Run wrk(String base, Process app, Variant variant, int round, RedisAdmin redis) {
		return new Run(round, variant.app(), variant.limited(), WrkRun.measure(wrkCommand(base
				+ path(variant.limited())), this.seconds, app, redis, this.pinning));
	}

	/**
	 * Fails the benchmark unless the app decides a policy from leases (it has the lease meter once a request went
	 * through the policy): it would otherwise measure an exact policy under the leased label.
	 * @param base the app's URL
	 * @param path a path the policy limits
	 * @param policy the policy
	 */
	static void requireLeasing(String base, String path, String policy) {
		AppProcess.get(base + path);
		if (AppProcess.status(base + "/actuator/metrics/" + LEASE_METER) != 200) {
			throw new IllegalStateException("The app at " + base + " does not lease policy '" + policy + "' (no meter "
					+ LEASE_METER + " after a request to " + path + "): the benchmark would measure an exact "
					+ "policy; was it started with leasing (" + String.join(" ", leaseArguments(policy)) + ")?");
		}
	}

	static String path(boolean limited) {
		return limited ? "/api/hello" : "/api/unlimited";
	}

	/**
	 * The meters of an app whose names speak of Lettuce or Redis commands, from {@code /actuator/metrics}: present
	 * only where Boot observes Lettuce's commands.
	 */
	private static List<String> lettuceMeters(String base) {
		String body = AppProcess.get(base + "/actuator/metrics");
		List<String> names = new ArrayList<>();
		Matcher name = METER_NAME.matcher(body);
		while (name.find()) {
			String meter = name.group(1);
			if (meter.contains("lettuce") || meter.startsWith("redis")) {
				names.add(meter);
			}
		}
		return names;
	}

	/**
	 * The sample apps measured side by side: which sample, whether Spring Boot observes every Lettuce command, and
	 * whether policy {@code hello} is leased.
	 */
	enum SampleApp {

		/** {@code sample-app} (Spring MVC on Tomcat) as shipped: {@code LettuceObservationAutoConfiguration} applies. */
		SERVLET("servlet, as shipped", false, true, false),

		/** {@code sample-app} with {@code LettuceObservationAutoConfiguration} excluded. */
		SERVLET_UNOBSERVED("servlet, Lettuce observation off", false, false, false),

		/** {@code sample-webflux-app} (Spring WebFlux on Reactor Netty) as shipped. */
		WEBFLUX("WebFlux, as shipped", true, true, false),

		/** {@code sample-app} as shipped, policy {@code hello} leased by {@link HttpOverhead#leaseArguments()}. */
		SERVLET_LEASED("servlet, as shipped, hello leased", false, true, true),

		/** {@code sample-webflux-app} as shipped, policy {@code hello} leased as the servlet's. */
		WEBFLUX_LEASED("WebFlux, as shipped, hello leased", true, true, true);

		private final String label;

		private final boolean webflux;

		private final boolean observed;

		private final boolean leased;

		SampleApp(String label, boolean webflux, boolean observed, boolean leased) {
			this.label = label;
			this.webflux = webflux;
			this.observed = observed;
			this.leased = leased;
		}

		String label() {
			return this.label;
		}

		boolean webflux() {
			return this.webflux;
		}

		boolean observed() {
			return this.observed;
		}

		boolean leased() {
			return this.leased;
		}

	}

	/**
	 * The executable jars of the two samples.
	 *
	 * @param servlet {@code sample-app}'s
	 * @param webflux {@code sample-webflux-app}'s
	 */
	record Jars(String servlet, String webflux) {

		String of(SampleApp app) {
			return app.webflux() ? this.webflux : this.servlet;
		}

		/**
		 * The first jar that was not built, if any.
		 * @return its path, or {@code null} when both exist
		 */
		@Nullable String missing() {
			return Stream.of(this.servlet, this.webflux)
				.filter((jar) -> !Files.isRegularFile(Path.of(jar)))
				.findFirst()
				.orElse(null);
		}

	}

	/**
	 * One app and path.
	 *
	 * @param app the app
	 * @param limited whether the path is the limited one
	 * @param measured whether the run is measured (else it settles the app after the one before)
	 */
	record Variant(SampleApp app, boolean limited, boolean measured) {

	}

	/**
	 * One wrk run of one (app, path).
	 *
	 * @param round the round, from 0 (-1 for a warm-up)
	 * @param app which app
	 * @param limited whether it hit the limited path
	 * @param wrk what it measured
	 */
	record Run(int round, SampleApp app, boolean limited, WrkRun wrk) {

	}

	/**
	 * Every measured run, in the order run, and which Lettuce meters each app showed.
	 *
	 * @param runs the runs
	 * @param lettuceMeters per app, the names of its meters that speak of Lettuce or Redis commands
	 */
	record Result(List<Run> runs, Map<SampleApp, List<String>> lettuceMeters) {

		/**
		 * Limited over unlimited requests per second of one app, round by round.
		 */
		Spread limitedOverUnlimited(SampleApp app) {
			return ratio(app, true, app, false);
		}

		/**
		 * One path's requests per second of the servlet sample without Lettuce observation over with it, round by
		 * round.
		 */
		Spread offOverOn(boolean limited) {
			return ratio(SampleApp.SERVLET_UNOBSERVED, limited, SampleApp.SERVLET, limited);
		}

		/**
		 * One path's requests per second of the WebFlux sample over the servlet sample's (both as shipped), round by
		 * round.
		 */
		Spread webfluxOverServlet(boolean limited) {
			return ratio(SampleApp.WEBFLUX, limited, SampleApp.SERVLET, limited);
		}

		/**
		 * The app's CPU per request on the limited path over the unlimited path's, round by round.
		 */
		Spread cpuLimitedOverUnlimited(SampleApp app) {
			List<Double> ratios = new ArrayList<>();
			for (int round : rounds()) {
				ratios.add(mean(round, app, true, WrkRun::appCpuMicrosPerRequest)
						/ mean(round, app, false, WrkRun::appCpuMicrosPerRequest));
			}
			return Spread.of(ratios);
		}

		Spread spread(SampleApp app, boolean limited, ToDoubleFunction<WrkRun> value) {
			return Spread.of(this.runs.stream()
				.filter((run) -> run.app() == app && run.limited() == limited)
				.map((run) -> value.applyAsDouble(run.wrk()))
				.toList());
		}

		long non2xx() {
			return this.runs.stream().mapToLong((run) -> run.wrk().non2xx()).sum();
		}

		private Spread ratio(SampleApp app, boolean limited, SampleApp otherApp, boolean otherLimited) {
			List<Double> ratios = new ArrayList<>();
			for (int round : rounds()) {
				ratios.add(mean(round, app, limited, WrkRun::requestsPerSecond)
						/ mean(round, otherApp, otherLimited, WrkRun::requestsPerSecond));
			}
			return Spread.of(ratios);
		}

		private List<Integer> rounds() {
			return this.runs.stream().map(Run::round).distinct().sorted().toList();
		}

		/**
		 * The mean of a value over one round's runs of an (app, path): two, A, B, B, A.
		 */
		private double mean(int round, SampleApp app, boolean limited, ToDoubleFunction<WrkRun> value) {
			return this.runs.stream()
				.filter((run) -> run.round() == round && run.app() == app && run.limited() == limited)
				.mapToDouble((run) -> value.applyAsDouble(run.wrk()))
				.average()
				.orElseThrow();
		}

	}

}
