package io.github.ratelimit.benchmarks;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.ToDoubleFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;

/**
 * The HTTP cost of the filter: the sample apps under {@code wrk}, their limited {@code /api/hello} (with a limit never
 * reached) against their unlimited {@code /api/unlimited}. Four sample apps run side by side (see {@link SampleApp}):
 * the servlet sample as shipped (Spring Boot observes every Lettuce command), the servlet sample with
 * {@code LettuceObservationAutoConfiguration} excluded, the WebFlux sample as shipped, and the servlet sample as
 * shipped with policy {@code hello} leased; every round runs the eight (app, path) pairs one after the other, in an
 * order that rotates from round to round, counting the script calls Redis received during each. Traffic goes to
 * 127.0.0.1 only.
 */
final class HttpOverhead {

	/** The limited path's limit, never reached. */
	static final String LIMIT = "1000000000/1h";

	/** Spring Boot's auto-configuration that observes every Lettuce command (spring-boot-data-redis 4.0.7). */
	static final String LETTUCE_OBSERVATION = "org.springframework.boot.data.redis.autoconfigure.observation."
			+ "LettuceObservationAutoConfiguration";

	/** The longest a sample app may take to start, on a busy machine. */
	private static final Duration STARTUP = Duration.ofSeconds(180);

	private static final Pattern RATE = Pattern.compile("Requests/sec:\\s+([0-9.]+)");

	private static final Pattern REQUESTS = Pattern.compile("(\\d+) requests in");

	private static final Pattern NON_2XX = Pattern.compile("Non-2xx or 3xx responses:\\s+(\\d+)");

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
		List<String> command = new ArrayList<>(List.of(javaBin(), "-Xmx512m", "-jar", this.jars.of(app),
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
		String lease = "--ratelimit.policies.hello.lease.";
		return List.of(lease + "enabled=true", lease + "batch=" + LeaseDecisions.LEASE.batch(),
				lease + "adaptive=" + LeaseDecisions.LEASE.adaptive(),
				lease + "max-age=" + LeaseDecisions.LEASE.maxAge().toMillis() + "ms");
	}

	List<String> wrkCommand(String url) {
		return this.pinning.client(List.of("wrk", "-t" + this.threads, "-c" + this.connections,
				"-d" + this.seconds + "s", "--latency", url));
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
				awaitUp(bases.get(app) + "/api/unlimited", apps.get(app), app);
				if (app.leased()) {
					requireLeasing(bases.get(app));
				}
			}
			List<Variant> variants = new ArrayList<>();
			for (SampleApp app : SampleApp.values()) {
				variants.add(new Variant(app, false));
				variants.add(new Variant(app, true));
			}
			this.log.accept("HTTP: warming the sample apps up");
			for (int warmUp = 0; warmUp < warmUps; warmUp++) {
				for (Variant variant : variants) {
					wrk(bases.get(variant.app()), apps.get(variant.app()), variant, -1, admin);
				}
			}
			Map<SampleApp, List<String>> meters = new EnumMap<>(SampleApp.class);
			for (SampleApp app : SampleApp.values()) {
				meters.put(app, lettuceMeters(bases.get(app)));
			}
			List<Run> runs = new ArrayList<>();
			for (int round = 0; round < rounds; round++) {
				List<Variant> order = new ArrayList<>(variants);
				Collections.rotate(order, -round);
				if (round % 2 == 1) {
					Collections.reverse(order);
				}
				for (Variant variant : order) {
					this.log.accept("HTTP round " + (round + 1) + "/" + rounds + ": " + variant.app().label() + ", "
							+ path(variant.limited()));
					runs.add(wrk(bases.get(variant.app()), apps.get(variant.app()), variant, round, admin));
				}
			}
			return new Result(runs, meters);
		}
		finally {
			apps.values().forEach(HttpOverhead::stop);
		}
	}

	private Process start(int port, SampleApp app) {
		try {
			return new ProcessBuilder(sampleCommand(port, app)).redirectErrorStream(true)
				.redirectOutput(logFile(app))
				.start();
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not start the sample app " + this.jars.of(app), ex);
		}
	}

	private static void stop(Process app) {
		app.destroy();
		try {
			if (!app.waitFor(15, TimeUnit.SECONDS)) {
				app.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
			}
		}
		catch (InterruptedException ex) {
			app.destroyForcibly();
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * Fails the benchmark unless the app decides policy {@code hello} from leases (it has the lease meter once a
	 * request went through the policy): it would otherwise measure an exact policy under the leased label.
	 */
	private static void requireLeasing(String base) {
		get(base + path(true));
		if (status(base + "/actuator/metrics/" + LEASE_METER) != 200) {
			throw new IllegalStateException("The sample app at " + base + " does not lease policy 'hello' (no meter "
					+ LEASE_METER + " after a request to " + path(true) + "): the benchmark would measure an exact "
					+ "policy; was it built with leasing (" + String.join(" ", leaseArguments()) + ")?");
		}
	}

	private Run wrk(String base, Process app, Variant variant, int round, RedisAdmin redis) {
		double cpuBefore = ProcessCpu.seconds(app.pid());
		CpuUsage cpusBefore = CpuUsage.now();
		RedisStats redisBefore = redis.stats();
		String output = Processes.run(wrkCommand(base + path(variant.limited())), this.seconds + 30L);
		long scriptCalls = redis.stats().since(redisBefore, this.seconds).scriptCalls();
		double appCpu = ProcessCpu.seconds(app.pid()) - cpuBefore;
		double clientCpuBusy = CpuUsage.now().busySince(cpusBefore, this.pinning.clientCpu());
		Matcher rate = RATE.matcher(output);
		Matcher requests = REQUESTS.matcher(output);
		if (!rate.find() || !requests.find()) {
			throw new IllegalStateException("Unexpected wrk output: " + output);
		}
		Matcher non2xx = NON_2XX.matcher(output);
		return new Run(round, variant.app(), variant.limited(), Double.parseDouble(rate.group(1)),
				percentile(output, "50%"), percentile(output, "99%"),
				non2xx.find() ? Long.parseLong(non2xx.group(1)) : 0, Long.parseLong(requests.group(1)), appCpu,
				clientCpuBusy, scriptCalls);
	}

	static String path(boolean limited) {
		return limited ? "/api/hello" : "/api/unlimited";
	}

	/**
	 * A latency percentile of wrk's --latency distribution, in milliseconds.
	 */
	static double percentile(String wrkOutput, String percentile) {
		Matcher matcher = Pattern.compile("^\\s*" + Pattern.quote(percentile) + "\\s+([0-9.]+)(us|ms|s)\\s*$",
				Pattern.MULTILINE).matcher(wrkOutput);
		if (!matcher.find()) {
			throw new IllegalStateException("No " + percentile + " latency in wrk output: " + wrkOutput);
		}
		double value = Double.parseDouble(matcher.group(1));
		return switch (matcher.group(2)) {
			case "us" -> value / 1000;
			case "s" -> value * 1000;
			default -> value;
		};
	}

	/**
	 * The meters of an app whose names speak of Lettuce or Redis commands, from {@code /actuator/metrics}: present
	 * only where Boot observes Lettuce's commands.
	 */
	private static List<String> lettuceMeters(String base) {
		String body = get(base + "/actuator/metrics");
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

	private static String get(String url) {
		return send(url).body();
	}

	private static int status(String url) {
		return send(url).statusCode();
	}

	private static HttpResponse<String> send(String url) {
		try {
			return HttpClient.newHttpClient()
				.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).build(),
						HttpResponse.BodyHandlers.ofString());
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not read " + url, ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted reading " + url, ex);
		}
	}

	private static void awaitUp(String url, Process process, SampleApp app) {
		HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
		long deadline = System.nanoTime() + STARTUP.toNanos();
		while (System.nanoTime() - deadline < 0) {
			if (!process.isAlive()) {
				throw new IllegalStateException("The sample app exited with " + process.exitValue() + "; see "
						+ logFile(app));
			}
			try {
				HttpResponse<Void> response = client.send(HttpRequest.newBuilder(URI.create(url)).build(),
						HttpResponse.BodyHandlers.discarding());
				if (response.statusCode() == 200) {
					return;
				}
			}
			catch (IOException ex) {
				// not up yet
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted waiting for the sample app", ex);
			}
			try {
				Thread.sleep(250);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted waiting for the sample app", ex);
			}
		}
		throw new IllegalStateException("The sample app did not answer " + url + " within " + STARTUP.toSeconds()
				+ " s; see " + logFile(app));
	}

	private static File logFile(SampleApp app) {
		return new File(System.getProperty("java.io.tmpdir"),
				"ratelimit-benchmarks-sample-" + app.name().toLowerCase(Locale.ROOT).replace('_', '-') + ".log");
	}

	private static String javaBin() {
		return System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
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
		SERVLET_LEASED("servlet, as shipped, hello leased", false, true, true);

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
	 */
	record Variant(SampleApp app, boolean limited) {

	}

	/**
	 * One wrk run.
	 *
	 * @param round the round, from 0 (-1 for a warm-up)
	 * @param app which app
	 * @param limited whether it hit the limited path
	 * @param requestsPerSecond throughput
	 * @param p50Millis median latency
	 * @param p99Millis 99th percentile latency
	 * @param non2xx responses that were not 2xx or 3xx
	 * @param requests the requests wrk completed
	 * @param appCpuSeconds CPU seconds the sample app's process used meanwhile (NaN where unknown)
	 * @param clientCpuBusy how busy the CPU of wrk and the app was, every process counted (NaN when not pinned)
	 * @param scriptCalls the script calls (EVALSHA, EVAL) Redis received during the run, from any client
	 */
	record Run(int round, SampleApp app, boolean limited, double requestsPerSecond, double p50Millis,
			double p99Millis, long non2xx, long requests, double appCpuSeconds, double clientCpuBusy,
			long scriptCalls) {

		/**
		 * The sample app's CPU per request.
		 * @return microseconds
		 */
		double appCpuMicrosPerRequest() {
			return (this.requests > 0) ? this.appCpuSeconds * 1e6 / this.requests : Double.NaN;
		}

		/**
		 * Redis script calls per request: the round trips to Redis a request cost, measured.
		 * @return calls per request
		 */
		double scriptCallsPerRequest() {
			return (this.requests > 0) ? this.scriptCalls / (double) this.requests : Double.NaN;
		}

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

		Spread spread(SampleApp app, boolean limited, ToDoubleFunction<Run> value) {
			return Spread.of(this.runs.stream()
				.filter((run) -> run.app() == app && run.limited() == limited)
				.map(value::applyAsDouble)
				.toList());
		}

		long non2xx() {
			return this.runs.stream().mapToLong(Run::non2xx).sum();
		}

		private Spread ratio(SampleApp app, boolean limited, SampleApp otherApp, boolean otherLimited) {
			List<Double> ratios = new ArrayList<>();
			for (int round : rounds()) {
				ratios.add(run(round, app, limited).requestsPerSecond()
						/ run(round, otherApp, otherLimited).requestsPerSecond());
			}
			return Spread.of(ratios);
		}

		private List<Integer> rounds() {
			return this.runs.stream().map(Run::round).distinct().sorted().toList();
		}

		private Run run(int round, SampleApp app, boolean limited) {
			return this.runs.stream()
				.filter((run) -> run.round() == round && run.app() == app && run.limited() == limited)
				.findFirst()
				.orElseThrow();
		}

	}

}
