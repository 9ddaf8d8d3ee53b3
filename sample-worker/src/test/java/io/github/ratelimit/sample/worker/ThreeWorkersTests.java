package io.github.ratelimit.sample.worker;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import io.github.ratelimit.redis.RedisTime;
import io.github.ratelimit.sample.worker.PartnerJob.Counts;
import io.github.ratelimit.test.TestRedis;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.junit.jupiter.api.Test;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample's claim, as {@code demo.sh --worker} shows it: three workers on one Redis, each asking for 35 calls a
 * second of a partner that allows 20 a second in all (policy {@code partner}: a fixed window of {@code 20/1s}),
 * together five times the rate. The stub partner API never receives more than 20 calls in any second of Redis'
 * clock: counted over the whole run, it receives at most 20 for each second of Redis' clock the run touched, however
 * slowly the machine starts the workers; the calls wait for their permits ({@code ratelimit.wait} records admitted
 * waits) and none fails otherwise.
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
		long startMicros;
		long endMicros;
		try (PartnerStub stub = PartnerStub.start(0)) {
			startMicros = RedisTime.testRedisMicros();
			try {
				for (int i = 0; i < 3; i++) {
					workers.add(new SpringApplicationBuilder(SampleWorkerApplication.class).run(
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
			long windows = endMicros / 1_000_000 - startMicros / 1_000_000 + 1;
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

}
