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

import io.github.ratelimit.core.Limit;
import io.github.ratelimit.redis.RedisTime;
import io.github.ratelimit.test.StartedWindow;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Three instances of the sample, each in its own JVM with its wall clock shifted by -45 s, 0 and +45 s
 * ({@link io.github.ratelimit.test.ClockShiftAgent}), on one Redis: they decide exactly as one instance would,
 * because no application clock enters a Redis decision. That the clocks really are apart is checked twice: from the
 * {@code Date} header each instance's Tomcat writes from its own clock, and by three in-memory instances with the
 * same clocks, whose fixed windows end where each instance's own clock puts them.
 * <p>
 * What depends on the machine's pace is measured, not raced: decisions get {@link RunningSample}'s generous timeout
 * (a slow answer must not fail open and break an exact count), the fixed window began on Redis' clock when the
 * instances started and lasts ten minutes more (Redis' clock shows the requests fell in it), spreads of resets are
 * bounded by the time the requests took, and the token bucket's periods are long enough that no permit is refilled
 * while the test runs.
 */
class SkewedClockTests {

	private static final List<Duration> OFFSETS = List.of(Duration.ofSeconds(-45), Duration.ZERO,
			Duration.ofSeconds(45));

	private static final List<ShiftedClockSample> instances = new ArrayList<>();

	/** The limit of {@code /api/hello}: 5 per a window begun on Redis' clock when the instances started. */
	private static Limit hello;

	@BeforeAll
	static void startThreeInstancesWithSkewedClocks() throws Exception {
		hello = StartedWindow.begunAt(RedisTime.testRedisMicros(), "5/10m");
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
	void fixedWindowRoundRobinAcrossSkewedInstancesAdmitsExactlyTheLimitInOneWindow() {
		Admissions admissions = roundRobinOnRedis();
		assertThat(admissions.inOneWindow()).as("15 requests within one window of Redis' clock").isTrue();
		assertThat(admissions.admitted()).isEqualTo(5);
		// every instance saw the end of the same window, on Redis' clock; had each instance's own clock chosen the
		// window, clocks 45 s apart would put their ends 30 s or more apart
		assertThat(admissions.resetSpread()).as("spread of X-RateLimit-Reset %s", admissions.resets())
			.isLessThanOrEqualTo(admissions.elapsedSeconds() + 1);
	}

	@Test
	void inMemoryInstancesWithTheSameClocksDecideApartOnWindowsTheirClocksChose() throws Exception {
		List<ShiftedClockSample> inMemory = startThree("ratelimit.backend=in-memory");
		try {
			Admissions admissions = roundRobin(inMemory, "client-" + UUID.randomUUID());
			// each instance counts alone, in a window its own clock aligned: the skew this test applies is real
			// enough to move a limiter that reads the application's clock
			assertThat(admissions.admitted()).isEqualTo(15);
			// at any one moment the instances' windows end 45 s or more apart; read over the requests' span, the
			// resets drift by up to that span, and each is rounded up to a second
			assertThat(admissions.resetSpread()).as("spread of X-RateLimit-Reset %s", admissions.resets())
				.isGreaterThanOrEqualTo(28 - admissions.elapsedSeconds());
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
						"ratelimit.policies.hello.limits=" + hello, "ratelimit.policies.hello.algorithm=fixed-window",
						"ratelimit.policies.hello.key=header:X-Client",
						"ratelimit.policies.orders.plans.free.limits=100/1d,1000/7d",
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

	/**
	 * {@link #roundRobin} for a fresh client on the Redis instances, with whether Redis' clock shows the requests fell
	 * in one window.
	 */
	private static Admissions roundRobinOnRedis() {
		long windowEnd = StartedWindow.end(hello, RedisTime.testRedisMicros());
		Admissions admissions = roundRobin(instances, "client-" + UUID.randomUUID());
		return admissions.inWindow(RedisTime.testRedisMicros() < windowEnd);
	}

	/**
	 * 15 requests of one client to {@code /api/hello} (a fixed window of 5), round-robin, with the seconds they took,
	 * rounded down.
	 */
	private static Admissions roundRobin(List<ShiftedClockSample> instances, String client) {
		long start = System.nanoTime();
		int admitted = 0;
		List<Long> resets = new ArrayList<>();
		for (int i = 0; i < 15; i++) {
			HttpResponse<String> response = instances.get(i % 3).get("/api/hello", "X-Client", client);
			assertThat(response.statusCode()).isIn(200, 429);
			admitted += (response.statusCode() == 200) ? 1 : 0;
			resets.add(Long.parseLong(response.headers().firstValue("X-RateLimit-Reset").orElseThrow()));
		}
		return new Admissions(admitted, resets, TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start), true);
	}

	private record Admissions(int admitted, List<Long> resets, long elapsedSeconds, boolean inOneWindow) {

		Admissions inWindow(boolean inOneWindow) {
			return new Admissions(this.admitted, this.resets, this.elapsedSeconds, inOneWindow);
		}

		long resetSpread() {
			return this.resets.stream().mapToLong(Long::longValue).max().orElseThrow()
					- this.resets.stream().mapToLong(Long::longValue).min().orElseThrow();
		}

	}

}
