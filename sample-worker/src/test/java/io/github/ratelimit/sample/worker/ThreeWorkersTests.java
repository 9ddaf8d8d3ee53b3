package io.github.ratelimit.sample.worker;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

import io.github.ratelimit.redis.RedisTime;
import io.github.ratelimit.sample.worker.PartnerJob.Counts;
import io.github.ratelimit.test.TestRedis;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.junit.jupiter.api.Test;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.SmartLifecycle;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample's claim, as {@code demo.sh --worker} shows it: three workers on one Redis, each asking for 35 calls a
 * second of a partner that allows 20 a second in all (policy {@code partner}: a fixed window of {@code 20/1s}),
 * together five times the rate. The stub partner API never receives more than 20 calls in any second of Redis'
 * clock: counted over the whole run, it receives at most 20 for each second of Redis' clock the run touched (from
 * just before the first worker's job started to after the last worker stopped), however slowly the machine starts the
 * workers; the calls wait for their permits ({@code ratelimit.wait} records admitted waits) and none fails otherwise.
 * Without the shared limit (three instances of the {@code in-memory} backend) the stub receives about three times it.
 */
class ThreeWorkersTests {

	private static final int RATE = 20;

	private static final long RUN_MILLIS = 2500;

	@Test
	void threeWorkersAskingForFiveTimesTheRateNeverSendThePartnerMoreThanTheRate() throws Exception {
		String keyPrefix = "sample-worker-tests-" + UUID.randomUUID();
		TestRedis redis = TestRedis.get();
		List<ConfigurableApplicationContext> workers = new ArrayList<>();
		List<PartnerJob> jobs = new ArrayList<>();
		long admittedWaits = 0;
		AtomicLong startMicros = new AtomicLong();
		long endMicros;
		try (PartnerStub stub = PartnerStub.start(0)) {
			try {
				for (int i = 0; i < 3; i++) {
					SpringApplicationBuilder worker = new SpringApplicationBuilder(SampleWorkerApplication.class);
					if (i == 0) {
						worker.initializers((context) -> context.getBeanFactory()
							.registerSingleton("redisClockAtStart", new RedisClockAtStart(startMicros)));
					}
					workers.add(worker.run(
							"--sample.embedded-redis=never", "--spring.data.redis.host=" + redis.host(),
							"--spring.data.redis.port=" + redis.port(), "--ratelimit.key-prefix=" + keyPrefix,
							"--sample.worker.partner-url=http://127.0.0.1:" + stub.port() + "/partner"));
					jobs.add(workers.get(i).getBean(PartnerJob.class));
				}
				// the run itself, all three asking: what is measured is every call, from the first worker's start
				Thread.sleep(RUN_MILLIS);
				for (ConfigurableApplicationContext worker : workers) {
					Timer admitted = worker.getBean(MeterRegistry.class).find("ratelimit.wait")
						.tags("policy", "partner", "outcome", "admitted").timer();
					admittedWaits += (admitted != null) ? admitted.count() : 0;
				}
			}
			finally {
				workers.forEach(ConfigurableApplicationContext::close);
			}
			endMicros = RedisTime.testRedisMicros();
			List<Counts> counts = jobs.stream().map(PartnerJob::counts).toList();
			long received = stub.total();
			long windows = endMicros / 1_000_000 - startMicros.get() / 1_000_000 + 1;
			long asked = counts.stream().mapToLong(Counts::asked).sum();
			long made = counts.stream().mapToLong(Counts::made).sum();
			long gaveUp = counts.stream().mapToLong(Counts::gaveUp).sum();
			System.out.printf("Three workers: asked %d, made %d, gave up %d; the stub received %d in %d seconds of "
					+ "Redis' clock (at most %d)%n", asked, made, gaveUp, received, windows, RATE * windows);
			assertThat(received).as("calls the stub received in %d seconds of Redis' clock", windows)
				.isPositive()
				.isLessThanOrEqualTo(RATE * windows)
				.isGreaterThanOrEqualTo(made);
			assertThat(admittedWaits).as("calls admitted after waiting").isPositive();
			assertThat(asked).as("calls asked for").isGreaterThan(received);
			assertThat(counts).allSatisfy((count) -> assertThat(count.failed()).as("calls failed otherwise").isZero());
		}
	}

	/**
	 * Reads Redis' clock as the first worker's lifecycle starts, before its job (started in a later phase) can call.
	 */
	private static final class RedisClockAtStart implements SmartLifecycle {

		private final AtomicLong micros;

		private volatile boolean running;

		RedisClockAtStart(AtomicLong micros) {
			this.micros = micros;
		}

		@Override
		public void start() {
			this.micros.set(RedisTime.testRedisMicros());
			this.running = true;
		}

		@Override
		public void stop() {
			this.running = false;
		}

		@Override
		public boolean isRunning() {
			return this.running;
		}

		@Override
		public int getPhase() {
			return Integer.MIN_VALUE;
		}

	}

}
