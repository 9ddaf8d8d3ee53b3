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
 * because no application clock enters a Redis decision. First the test checks that the clocks really are apart, from
 * the {@code Date} header each instance's Tomcat writes from its own clock.
 */
class SkewedClockTests {

	private static final List<Duration> OFFSETS = List.of(Duration.ofSeconds(-45), Duration.ZERO,
			Duration.ofSeconds(45));

	private static final List<ShiftedClockSample> instances = new ArrayList<>();

	@BeforeAll
	static void startThreeInstancesWithSkewedClocks() throws Exception {
		String prefix = "skewed-clocks-" + UUID.randomUUID();
		for (Duration offset : OFFSETS) {
			instances.add(ShiftedClockSample.start(offset, "ratelimit.key-prefix=" + prefix,
					"ratelimit.policies.hello.limits=5/1m", "ratelimit.policies.hello.algorithm=fixed-window",
					"ratelimit.policies.hello.key=header:X-Client",
					"ratelimit.policies.orders.limits=100/1h,1000/1d"));
		}
		for (ShiftedClockSample instance : instances) {
			instance.awaitReady();
		}
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
		String client = "client-" + UUID.randomUUID();
		int admitted = 0;
		List<Long> resets = new ArrayList<>();
		long start = System.nanoTime();
		for (int i = 0; i < 15; i++) {
			HttpResponse<String> response = instances.get(i % 3).get("/api/hello", "X-Client", client);
			assertThat(response.statusCode()).isIn(200, 429);
			admitted += (response.statusCode() == 200) ? 1 : 0;
			resets.add(Long.parseLong(response.headers().firstValue("X-RateLimit-Reset").orElseThrow()));
		}
		long elapsedSeconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
		assertThat(admitted).isEqualTo(5);
		// every instance saw the end of the same window, on Redis' clock; clocks 45 s apart would put it 15 s or more
		// apart if an instance's own clock chose the window
		long spread = resets.stream().mapToLong(Long::longValue).max().orElseThrow()
				- resets.stream().mapToLong(Long::longValue).min().orElseThrow();
		assertThat(spread).as("spread of X-RateLimit-Reset %s", resets).isLessThanOrEqualTo(elapsedSeconds + 1);
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
