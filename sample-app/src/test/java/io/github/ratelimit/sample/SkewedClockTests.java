package io.github.ratelimit.sample;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.ratelimit.test.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Three instances of the sample, each in its own JVM with its wall clock shifted by -45 s, 0 and +45 s
 * ({@link io.github.ratelimit.test.ClockShiftAgent}), on one Redis: they decide exactly as one instance would,
 * because no application clock enters a Redis decision. That the clocks really are apart is checked twice: from the
 * {@code Date} header each instance's Tomcat writes from its own clock, and by three in-memory instances with the
 * same clocks, whose fixed windows end where each instance's own clock puts them.
 */
class SkewedClockTests {

	private static final List<Duration> OFFSETS = List.of(Duration.ofSeconds(-45), Duration.ZERO,
			Duration.ofSeconds(45));

	private static final List<ShiftedClockSample> instances = new ArrayList<>();

	@BeforeAll
	static void startThreeInstancesWithSkewedClocks() throws Exception {
		instances.addAll(startThree("ratelimit.backend=redis"));
	}

	@AfterAll
	static void stopInstances() {
		instances.forEach(ShiftedClockSample::close);
	}

	@Test
	void eachInstanceReadsAClockShiftedByItsOffset() {
		for (ShiftedClockSample instance : instances) {
			long before = System.currentTimeMillis();
			HttpResponse<String> response = instance.get("/api/unlimited");
			long after = System.currentTimeMillis();
			long date = ZonedDateTime
				.parse(response.headers().firstValue("Date").orElseThrow(), DateTimeFormatter.RFC_1123_DATE_TIME)
				.toInstant()
				.toEpochMilli();
			long offset = instance.offset().toMillis();
			// the header has whole seconds, and Tomcat renews it at most once a second
			assertThat(date).as("Date header of the instance shifted by %s", instance.offset())
				.isBetween(before + offset - 2000, after + offset + 1000);
		}
	}

	@Test
	void fixedWindowRoundRobinAcrossSkewedInstancesAdmitsExactlyTheLimitInOneWindow() throws InterruptedException {
		awaitRedisMinuteWithAtLeast(Duration.ofSeconds(20));
		long start = System.nanoTime();
		Admissions admissions = roundRobin(instances, "client-" + UUID.randomUUID());
		long elapsedSeconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
		assertThat(admissions.admitted()).isEqualTo(5);
		// every instance saw the end of the same window, on Redis' clock; had each instance's own clock chosen the
		// window, clocks 45 s apart would put their ends 30 s or more apart
		assertThat(admissions.resetSpread()).as("spread of X-RateLimit-Reset %s", admissions.resets())
			.isLessThanOrEqualTo(elapsedSeconds + 1);
	}

	@Test
	void inMemoryInstancesWithTheSameClocksDecideApartOnWindowsTheirClocksChose() throws Exception {
		List<ShiftedClockSample> inMemory = startThree("ratelimit.backend=in-memory");
		try {
			Admissions admissions = roundRobin(inMemory, "client-" + UUID.randomUUID());
			// each instance counts alone, in a window its own clock aligned: the skew this test applies is real
			// enough to move a limiter that reads the application's clock
			assertThat(admissions.admitted()).isEqualTo(15);
			assertThat(admissions.resetSpread()).as("spread of X-RateLimit-Reset %s", admissions.resets())
				.isGreaterThanOrEqualTo(20);
		}
		finally {
			inMemory.forEach(ShiftedClockSample::close);
		}
	}

	@Test
	void oneApiKeyFromConcurrentThreadsAcrossSkewedInstancesIsAdmittedExactlyTheMultiLimit() throws Exception {
		String apiKey = "key-" + UUID.randomUUID();
		List<Callable<Integer>> clients = new ArrayList<>();
		for (int thread = 0; thread < 12; thread++) {
			ShiftedClockSample instance = instances.get(thread % 3);
			clients.add(() -> {
				int admitted = 0;
				for (int i = 0; i < 20; i++) {
					int status = instance.get("/api/orders", "X-Api-Key", apiKey).statusCode();
					assertThat(status).isIn(200, 429);
					admitted += (status == 200) ? 1 : 0;
				}
				return admitted;
			});
		}
		int admitted = 0;
		ExecutorService executor = Executors.newFixedThreadPool(clients.size());
		try {
			for (Future<Integer> result : executor.invokeAll(clients)) {
				admitted += result.get();
			}
		}
		finally {
			executor.shutdown();
		}
		assertThat(admitted).isEqualTo(100);
	}

	private static List<ShiftedClockSample> startThree(String backend) throws Exception {
		String prefix = "skewed-clocks-" + UUID.randomUUID();
		List<ShiftedClockSample> started = new ArrayList<>();
		try {
			for (Duration offset : OFFSETS) {
				started.add(ShiftedClockSample.start(offset, backend, "ratelimit.key-prefix=" + prefix,
						"ratelimit.policies.hello.limits=5/1m", "ratelimit.policies.hello.algorithm=fixed-window",
						"ratelimit.policies.hello.key=header:X-Client",
						"ratelimit.policies.orders.limits=100/1h,1000/1d",
						// every request comes from one address: the per-IP limit must not bind before the API key's
						"ratelimit.policies.orders-ip.limits=10000/1h"));
			}
			for (ShiftedClockSample instance : started) {
				instance.awaitReady();
			}
			return started;
		}
		catch (Exception | Error ex) {
			started.forEach(ShiftedClockSample::close);
			throw ex;
		}
	}

	/** 15 requests of one client to {@code /api/hello} (a fixed window of 5 a minute), round-robin. */
	private static Admissions roundRobin(List<ShiftedClockSample> instances, String client) {
		int admitted = 0;
		List<Long> resets = new ArrayList<>();
		for (int i = 0; i < 15; i++) {
			HttpResponse<String> response = instances.get(i % 3).get("/api/hello", "X-Client", client);
			assertThat(response.statusCode()).isIn(200, 429);
			admitted += (response.statusCode() == 200) ? 1 : 0;
			resets.add(Long.parseLong(response.headers().firstValue("X-RateLimit-Reset").orElseThrow()));
		}
		return new Admissions(admitted, resets);
	}

	private record Admissions(int admitted, List<Long> resets) {

		long resetSpread() {
			return this.resets.stream().mapToLong(Long::longValue).max().orElseThrow()
					- this.resets.stream().mapToLong(Long::longValue).min().orElseThrow();
		}

	}

	private static void awaitRedisMinuteWithAtLeast(Duration needed) throws InterruptedException {
		LettuceConnectionFactory factory = TestRedis.get().newConnectionFactory();
		try {
			Long micros = new StringRedisTemplate(factory).execute(
					(RedisCallback<Long>) (connection) -> connection.serverCommands().time(TimeUnit.MICROSECONDS));
			long left = 60_000_000L - (micros % 60_000_000L);
			if (left < needed.toNanos() / 1000) {
				Thread.sleep(left / 1000 + 10);
			}
		}
		finally {
			factory.destroy();
		}
	}

}
