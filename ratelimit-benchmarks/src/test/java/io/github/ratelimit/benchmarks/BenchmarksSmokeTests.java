package io.github.ratelimit.benchmarks;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import io.github.ratelimit.benchmarks.DecisionBenchmark.Kind;
import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.redis.OurScript;
import io.github.ratelimit.test.TestRedis;
import io.github.ratelimit.test.TestRedis.EmbeddedRedis;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Proves the benchmark harness still works: every benchmark runs for a fraction of a second and produces numbers,
 * and the report and chart are written. Asserts no speed. The benchmarks flush Redis and reset its statistics, so
 * this test starts an embedded Redis server of its own on a free port, whatever {@code REDIS_URL} says.
 */
class BenchmarksSmokeTests {

	/** The waiting cell in a fraction of a second per contender: 2 instances x 2 threads, 50 permits/s. */
	private static final WaitingPermits.Shape TINY_WAIT = new WaitingPermits.Shape(2, 2, 50, Duration.ofSeconds(1),
			Duration.ofMillis(100), Duration.ofMillis(200));

	private static final Settings SETTINGS = new Settings(2, Duration.ofMillis(10), Duration.ofMillis(40), false,
			100, 10, 20, 0, 1, 1, 4, TINY_WAIT, 0);

	/** One round of one second per route, no warm-up. */
	private static final Settings GATEWAY_SETTINGS = new Settings(1, Duration.ofMillis(10), Duration.ofMillis(40),
			false, 100, 10, 20, 0, 1, 1, 4, TINY_WAIT, 0);

	private static OwnRedis server;

	private static RedisAdmin redis;

	@BeforeAll
	static void startOwnRedis() {
		EmbeddedRedis embedded = EmbeddedRedis.start(TestRedis.freePort());
		server = new OwnRedis() {

			@Override
			public String host() {
				return "127.0.0.1";
			}

			@Override
			public int port() {
				return embedded.port();
			}

			@Override
			public void outage(Duration down) {
				embedded.stop();
				try {
					Thread.sleep(down.toMillis());
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
				embedded.restart();
			}

			@Override
			public void close() {
				embedded.stop();
			}

		};
		redis = new RedisAdmin(server);
	}

	@AfterAll
	static void stopOwnRedis() {
		redis.close();
		server.close();
	}

	@Test
	void everyBenchmarkProducesNumbersAndTheReportIsWritten(@TempDir Path docs) throws Exception {
		Results results = RunBenchmarks.measure(server, redis, SETTINGS, CpuPinning.none(), false, null, null,
				(message) -> {
				});
		for (int threads : DecisionBenchmark.THREADS) {
			for (Algorithm algorithm : Algorithm.values()) {
				for (Kind kind : List.of(Kind.OURS, Kind.PLAIN_LETTUCE)) {
					assertThat(results.decisions.of(kind, algorithm, threads)).hasSize(SETTINGS.runs());
				}
			}
			assertThat(results.decisions.of(Kind.BUCKET4J, Algorithm.TOKEN_BUCKET, threads)).hasSize(SETTINGS.runs());
		}
		assertThat(results.decisions.errors()).isZero();
		for (int threads : DecisionBenchmark.THREADS) {
			for (PlanDecisions.Path path : PlanDecisions.Path.values()) {
				assertThat(results.plans.of(path, threads)).hasSize(SETTINGS.runs())
					.allSatisfy((measurement) -> assertThat(measurement.decisions()).isPositive());
			}
			assertThat(results.plans.ratio(PlanDecisions.Path.OVERRIDE, threads).median()).isPositive();
		}
		assertThat(results.plans.errors()).isZero();
		for (int threads : DecisionBenchmark.THREADS) {
			for (Algorithm algorithm : LeaseDecisions.ALGORITHMS) {
				for (LeaseDecisions.Keys keys : LeaseDecisions.Keys.values()) {
					for (LeaseDecisions.Mode mode : LeaseDecisions.Mode.values()) {
						List<Measurement> cell = results.leases.of(new LeaseDecisions.Cell(algorithm, keys, mode,
								threads));
						assertThat(cell).hasSize(SETTINGS.runs());
						assertThat(cell.stream().mapToLong(Measurement::decisions).sum()).isPositive();
					}
				}
				for (LeaseDecisions.Mode mode : List.of(LeaseDecisions.Mode.LEASED, LeaseDecisions.Mode.LEASED_LARGE)) {
					LeaseDecisions.Cell hot = new LeaseDecisions.Cell(algorithm, LeaseDecisions.Keys.HOT, mode, threads);
					assertThat(results.leases.callsPerDecision(hot).median())
						.as("Redis calls per decision of one hot key, %s, %s, %d threads", mode.label(), algorithm,
								threads)
						.isLessThan(results.leases.callsPerDecision(hot.exact()).median() / 2);
				}
			}
		}
		assertThat(results.leases.errors()).isZero();
		for (String benchmark : JmhDecisions.BENCHMARKS) {
			for (int threads : JmhDecisions.THREADS) {
				assertThat(results.jmh.of(benchmark, threads).perSecond()).as("JMH %s, %d threads", benchmark, threads)
					.isPositive();
			}
		}
		for (Algorithm algorithm : Algorithm.values()) {
			for (Kind kind : List.of(Kind.OURS, Kind.PLAIN_LETTUCE)) {
				assertThat(results.decisions.usecPerScriptCall(kind, algorithm).median()).isPositive();
			}
		}
		assertThat(results.decisions.has(Kind.REDIS_BENCHMARK)).isFalse();
		assertThat(results.memory).hasSize(Algorithm.values().length + 1);
		assertThat(results.memory.values()).allSatisfy((memory) -> {
			assertThat(memory.keys()).isEqualTo(100);
			assertThat(memory.memoryUsage()).isPositive();
		});
		DenyCacheCalls.Result cached = results.denyCache.get(true);
		DenyCacheCalls.Result uncached = results.denyCache.get(false);
		assertThat(cached.allowed()).isEqualTo(10);
		assertThat(cached.denied()).isEqualTo(190);
		assertThat(cached.callsPerDenied()).isLessThan(uncached.callsPerDenied());
		assertThat(uncached.callsPerDenied()).isEqualTo(1.0);
		assertThat(results.waiting).isNotNull();
		for (WaitingPermits.Kind kind : WaitingPermits.Kind.values()) {
			assertThat(results.waiting.of(kind)).hasSize(SETTINGS.runs());
		}
		Environment environment = new Environment(Instant.now(), "ratelimit-benchmarks/run.sh", "0", "0", "0", 2, 1,
				"cpu", "memory", "jdk", "gc", CpuPinning.none().describe(), "redis-server", redis.version(), "lettuce",
				"bucket4j", "redis-benchmark", "wrk");
		String markdown = new BenchmarkReport(results, environment, SETTINGS).markdown();
		assertThat(markdown).contains("| ours, token-bucket |", "| plain Lettuce, our script, gcra |",
				"| Bucket4j (Lettuce CAS) |", "| deny cache |",
				"| two plans and a PlanResolver / plain policy |", "| override in force |", "## Leased permits",
				"| leased, token-bucket, one hot key |", "| exact, fixed-window, 10,000 keys |",
				"| leased / exact, token-bucket, one hot key |", "| leased, batch 10,000, fixed-window, one hot key |",
				"| leased / exact (leased, batch 10,000), token-bucket, one hot key |",
				"| leased, batch 10,000, one hot key, token-bucket: client CPU per decision at 64 threads ≤ 1.50x", "## In-process decisions on JMH",
				"| leased, `tryFromLease` |", "## Waiting for a permit",
				"| waiting: ours, token-bucket ≥ 98.0% of the rate", "## What the misses mean");
		Path chart = docs.resolve("benchmarks-throughput.png");
		ThroughputChart.write(BenchmarkReport.chartSeries(results), chart);
		assertThat(Files.size(chart)).isPositive();
	}

	/**
	 * The gateway cell end to end: the sample-gateway jar (built by this build before this module; its path given by
	 * the build as {@code benchmark.gatewayJar}) started with the benchmark's routes, every route loaded at every
	 * connection count ({@link WrkStandIn} in place of wrk, so that the build needs only a JDK), each limiter seen at
	 * work in Redis, admissions counted against a limit the load reaches, and the section and targets written.
	 */
	@Test
	void theGatewayCellMeasuresEveryRouteAndTheReportMarksItsTargets() throws Exception {
		String jar = System.getProperty("benchmark.gatewayJar");
		assertThat(Path.of(jar)).as("build sample-gateway first: ./mvnw package -pl sample-gateway -am -DskipTests")
			.isRegularFile();
		List<String> wrk = List.of(AppProcess.javaBin(), "-XX:TieredStopAtLevel=1", "-cp",
				Path.of(WrkStandIn.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString(),
				WrkStandIn.class.getName());
		// one connection count of the two, one round, no warm-up, one instance: the cell in about 20 s
		GatewayOverhead.Result gateway = new GatewayOverhead(jar, server, CpuPinning.none(), wrk,
				GATEWAY_SETTINGS.wrkThreads(), List.of(16), GATEWAY_SETTINGS.httpSeconds(), 1, (message) -> {
				})
			.measure(GATEWAY_SETTINGS.runs(), GATEWAY_SETTINGS.httpWarmUps());
		assertThat(gateway.connections()).containsExactly(16);
		for (int connections : gateway.connections()) {
			for (GatewayOverhead.Route route : GatewayOverhead.Route.values()) {
				assertThat(gateway.spread(route, connections, WrkRun::requests).median())
					.as("requests on %s at %d connections", route.path(), connections)
					.isPositive();
			}
			assertThat(gateway.spread(GatewayOverhead.Route.SCG, connections, WrkRun::scriptCallsPerRequest).median())
				.as("the gateway's RedisRateLimiter: one script call per request").isGreaterThan(0.9);
			assertThat(gateway.spread(GatewayOverhead.Route.EXACT, connections, WrkRun::scriptCallsPerRequest)
				.median()).as("ours, exact: one script call per request").isGreaterThan(0.9);
			assertThat(gateway.spread(GatewayOverhead.Route.LEASED, connections, WrkRun::scriptCallsPerRequest)
				.median()).as("ours, leased: a script call per lease").isLessThan(0.5);
			assertThat(gateway.spread(GatewayOverhead.Route.UNLIMITED, connections, WrkRun::scriptCallsPerRequest)
				.median()).as("no limiter").isLessThan(0.1);
		}
		assertThat(gateway.non2xx()).isZero();
		assertThat(gateway.admissions()).extracting(GatewayOverhead.Admission::route)
			.containsExactly(GatewayOverhead.Limited.SCG, GatewayOverhead.Limited.OURS,
					GatewayOverhead.Limited.OURS_LOCAL, GatewayOverhead.Limited.SCG_SHORT,
					GatewayOverhead.Limited.OURS_SHORT, GatewayOverhead.Limited.SCG, GatewayOverhead.Limited.OURS,
					GatewayOverhead.Limited.OURS_LOCAL);
		assertThat(gateway.admissions()).extracting(GatewayOverhead.Admission::redisStopped)
			.containsExactly(false, false, false, false, false, true, true, true);
		assertThat(gateway.admissions()).allSatisfy((admission) -> assertThat(admission.admitted()).isPositive());
		assertThat(gateway.admissions())
			.filteredOn((admission) -> admission.route() == GatewayOverhead.Limited.OURS && !admission.redisStopped())
			.singleElement()
			.satisfies((ours) -> assertThat(ours.admitted()).as("ours admits its limit, no more")
				.isLessThanOrEqualTo(GatewayOverhead.Limited.OURS.limit(ours.seconds() + 1))
				.isLessThan(ours.requests()));
		assertThat(gateway.admissions())
			.filteredOn((admission) -> admission.route() == GatewayOverhead.Limited.SCG_SHORT)
			.singleElement()
			.satisfies((scg) -> assertThat(scg.admitted()).as("the gateway's limiter with a TTL of 0 limits nothing")
				.isEqualTo(scg.requests()));
		String markdown = new GatewayReport(gateway, GATEWAY_SETTINGS).markdown();
		assertThat(markdown).contains("## Gateway", "| 16 | no limiter |", "| ours, `20/2s` |",
				"| ours, `20/2s`, Redis stopped mid-run |",
				"| 16 | ours, `RateLimit=bench-leased` (leased) |",
				"| gateway: ours, `RateLimit=bench-exact` (exact) ≥ 1.00x the gateway's `RequestRateLimiter`, "
						+ "`RedisRateLimiter`, requests/s, 16 connections |",
				"| gateway: ours, `RateLimit=bench-leased` (leased) ≥ 0.95x no limiter, requests/s, 16 connections |");
	}

	/**
	 * The waiting cell, one second per contender: every contender gets permits from the shared rate, ours never more
	 * than the rate over the interval plus one full bucket, and the commands counted on the clients' sockets are, for
	 * ours, the script calls Redis counted.
	 */
	@Test
	void theWaitingCellHoldsEveryContenderToTheRateAndTheReportMarksItsTargets() {
		WaitingPermits.Shape shape = new WaitingPermits.Shape(2, 3, 50, Duration.ofSeconds(1), Duration.ofMillis(300),
				Duration.ofSeconds(1));
		WaitingPermits.Result waiting = WaitingPermits.measure(server, redis, shape, 1, CpuPinning.none(),
				(message) -> {
				});
		for (WaitingPermits.Kind kind : WaitingPermits.Kind.values()) {
			assertThat(waiting.of(kind)).singleElement().satisfies((run) -> {
				assertThat(run.permits()).as("permits of %s", kind.label()).isPositive();
				assertThat(run.admitted()).hasSize(shape.instances());
				assertThat(run.callsPerPermit()).as("Redis calls per permit of %s", kind.label()).isPositive();
				assertThat(run.clientCpuMicrosPerPermit()).isPositive();
				assertThat(run.errors()).isZero();
			});
		}
		for (WaitingPermits.Kind ours : List.of(WaitingPermits.Kind.OURS_TOKEN_BUCKET, WaitingPermits.Kind.OURS_GCRA)) {
			WaitingPermits.Run run = waiting.of(ours).get(0);
			assertThat(run.permits()).as("ours admits the rate over the interval plus one bucket, no more")
				.isLessThanOrEqualTo(run.bound());
			assertThat(waiting.runsOver(ours)).isZero();
			// each caller has at most one call in flight when either end of the interval is read
			assertThat(Math.abs(run.sent() - run.redis().scriptCalls()))
				.as("commands counted on the clients' sockets against the script calls Redis counted")
				.isLessThanOrEqualTo(2L * shape.instances() * shape.threads());
		}
		String markdown = new WaitingReport(waiting).markdown();
		assertThat(markdown).contains("## Waiting for a permit", "| Redisson `RRateLimiter` |",
				"| Bucket4j, blocking bucket |", "| ours, token-bucket / Redisson `RRateLimiter` |",
				"| waiting: ours, token-bucket never over the rate",
				"| waiting: ours, gcra fewer Redis calls per permit than Redisson");
	}

	@Test
	void sentCommandsAreCountedInTheBytesWrittenAcrossWrites() {
		SentCommands sent = new SentCommands();
		EmbeddedChannel channel = new EmbeddedChannel();
		sent.count(channel);
		String commands = "*2\r\n$3\r\nGET\r\n$1\r\na\r\n*3\r\n$7\r\nEVALSHA\r\n$10\r\n*2\r\n$3\r\nab\r\n$1\r\n0\r\n";
		for (int i = 0; i < commands.length(); i += 5) {
			channel.writeOutbound(Unpooled.copiedBuffer(commands.substring(i, Math.min(i + 5, commands.length())),
					StandardCharsets.US_ASCII));
		}
		assertThat(sent.sent()).isEqualTo(2);
		channel.finishAndReleaseAll();
	}

	@Test
	void redisBenchmarkSendsTheBackendsScriptCall() {
		OurScript script = new OurScript(OurLimiter.KEY_PREFIX, OurLimiter.policy(Algorithm.GCRA, OurLimiter.LIMIT));
		List<String> command = new RedisBenchmarkTool(server, new CpuPinning("1", "0"))
			.command(OurLimiter.policy(Algorithm.GCRA, OurLimiter.LIMIT), 64, 1000);
		assertThat(command).startsWith("taskset", "-c", "0", "redis-benchmark")
			.containsSequence("-c", "64", "-P", "1", "-r", "10000")
			.containsSequence(script.sha1(), "1", script.keys("__rand_int__").get(0))
			.endsWith(script.argumentText().toArray(String[]::new));
	}

	@Test
	void externalToolOutputIsParsed() {
		String wrk = """
				  Latency Distribution
				     50%  812.00us
				     75%    1.20ms
				     90%    2.00ms
				     99%    1.05s
				""";
		assertThat(WrkRun.percentile(wrk, "50%")).isEqualTo(0.812);
		assertThat(WrkRun.percentile(wrk, "99%")).isEqualTo(1050.0);
		RedisStats before = RedisStats.parse("""
				# Commandstats\r
				cmdstat_evalsha:calls=10,usec=100,usec_per_call=10.00,rejected_calls=0,failed_calls=0\r
				cmdstat_hmget:calls=10,usec=20,usec_per_call=2.00,rejected_calls=0,failed_calls=0\r
				""", "used_cpu_sys:1.5\r\nused_cpu_user:2.5\r\nused_cpu_sys_children:9.0\r\n");
		RedisStats after = RedisStats.parse("""
				cmdstat_evalsha:calls=30,usec=260,usec_per_call=8.67,rejected_calls=0,failed_calls=0\r
				cmdstat_hmget:calls=30,usec=60,usec_per_call=2.00,rejected_calls=0,failed_calls=0\r
				""", "used_cpu_sys:2.0\r\nused_cpu_user:3.0\r\n");
		RedisStats.Delta delta = after.since(before, 2);
		assertThat(delta.scriptCalls()).isEqualTo(20);
		assertThat(delta.usecPerScriptCall()).isEqualTo(8.0);
		assertThat(delta.usec("hmget")).isEqualTo(40);
		assertThat(delta.cpuShare()).isEqualTo(0.5);
		assertThat(Spread.of(3.0, 1.0, 2.0)).isEqualTo(new Spread(2.0, 1.0, 3.0, 3));
	}

	/**
	 * Every round runs each app once, its runs one right after the other: a settling run not measured, then its two
	 * paths as A, B, B, A (the ratio of its paths compares adjacent runs, a drift weighing on both alike), which path
	 * is A alternating from round to round and the apps' order rotating.
	 */
	@Test
	void httpRoundsRunEachAppsPathsBackToBackAfterASettlingRun() {
		int apps = HttpOverhead.SampleApp.values().length;
		for (int round = 0; round < 2 * apps; round++) {
			List<HttpOverhead.Variant> order = HttpOverhead.order(round);
			assertThat(order).hasSize(5 * apps);
			for (int app = 0; app < apps; app++) {
				List<HttpOverhead.Variant> runs = order.subList(5 * app, 5 * app + 5);
				assertThat(runs).extracting(HttpOverhead.Variant::app).containsOnly(runs.get(0).app());
				assertThat(runs).extracting(HttpOverhead.Variant::measured)
					.as("round %d: a settling run, then four measured", round)
					.containsExactly(false, true, true, true, true);
				boolean a = round % 2 == 0;
				assertThat(runs).extracting(HttpOverhead.Variant::limited)
					.as("round %d: A, B, B, A, A the limited path in even rounds", round)
					.containsExactly(a, a, !a, !a, a);
			}
			List<HttpOverhead.SampleApp> blocks = new ArrayList<>();
			for (int app = 0; app < apps; app++) {
				blocks.add(order.get(5 * app).app());
			}
			assertThat(blocks).as("every app once per round").containsExactlyInAnyOrder(HttpOverhead.SampleApp.values());
			assertThat(order.get(0).app()).isEqualTo(HttpOverhead.SampleApp.values()[round % apps]);
		}
	}

	@Test
	void theRedisServerRunsPinnedWithoutPersistence() {
		CpuPinning pinning = new CpuPinning("1", "0");
		assertThat(pinning.redis(RedisServerProcess.command("redis-server", 6399, Path.of("/tmp/x"))))
			.startsWith("taskset", "-c", "1", "redis-server")
			.containsSequence("--save", "")
			.containsSequence("--appendonly", "no")
			.containsSequence("--bind", "127.0.0.1");
		HttpOverhead http = new HttpOverhead(new HttpOverhead.Jars("sample.jar", "sample-webflux.jar"), server, pinning,
				1, 16, 3, (message) -> {
				});
		assertThat(http.sampleCommand(8080, HttpOverhead.SampleApp.SERVLET_UNOBSERVED))
			.startsWith("taskset", "-c", "0")
			.containsSequence("-jar", "sample.jar")
			.contains("--spring.autoconfigure.exclude=" + HttpOverhead.LETTUCE_OBSERVATION);
		assertThat(http.sampleCommand(8080, HttpOverhead.SampleApp.WEBFLUX)).startsWith("taskset", "-c", "0")
			.containsSequence("-jar", "sample-webflux.jar")
			.noneMatch((argument) -> argument.startsWith("--spring.autoconfigure.exclude="))
			.noneMatch((argument) -> argument.startsWith("--ratelimit.policies.hello.lease."));
		assertThat(http.sampleCommand(8080, HttpOverhead.SampleApp.SERVLET_LEASED))
			.containsSequence("-jar", "sample.jar")
			.contains("--ratelimit.policies.hello.lease.enabled=true", "--ratelimit.policies.hello.lease.batch=100",
					"--ratelimit.policies.hello.lease.max-age=1000ms")
			.noneMatch((argument) -> argument.startsWith("--spring.autoconfigure.exclude="));
		GatewayOverhead gateway = new GatewayOverhead("sample-gateway.jar", server, pinning, WrkRun.WRK, 1,
				GatewayOverhead.CONNECTIONS, 3, GatewayOverhead.INSTANCES, (message) -> {
				});
		assertThat(gateway.gatewayCommand(8090, "http://127.0.0.1:8091", Path.of("/tmp/gateway-benchmark.yml")))
			.startsWith("taskset", "-c", "0")
			.containsSequence("-jar", "sample-gateway.jar")
			.contains("--spring.config.location=file:/tmp/gateway-benchmark.yml", "--spring.profiles.active=benchmark",
					"--bench.upstream=http://127.0.0.1:8091", "--ratelimit.policies.bench-leased.lease.enabled=true",
					"--ratelimit.policies.bench-leased.lease.batch=100");
	}

}
