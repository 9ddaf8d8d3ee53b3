package io.github.ratelimit.spring.annotation;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.github.ratelimit.autoconfigure.RateLimitAspectAutoConfiguration;
import io.github.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.ratelimit.autoconfigure.RateLimitRedisAutoConfiguration;
import io.github.ratelimit.redis.RedisTime;
import io.github.ratelimit.spring.RateLimitOutcome;
import io.github.ratelimit.spring.RateLimitRecorder;
import io.github.ratelimit.test.EmbeddedRedisCluster;
import io.github.ratelimit.test.ScriptCalls;
import io.github.ratelimit.test.TestRedis;
import io.github.ratelimit.test.TestRedisProperties;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The claim of waiting, proven as a worker would run it: three independent instances (each its own Spring context and
 * Redis connection) on one Redis, standalone and Cluster, each with four threads calling a
 * {@code @RateLimited(maxWait = "30s")} method ten times, together asking for three times the policy's capacity at once.
 * Every call is admitted, none fails, and none is admitted before its permit: Redis' own clock says the calls took at
 * least the time the rate allows ({@code admitted <= capacity + rate x elapsed}, the token bucket starting full).
 * Without waiting, 80 of the 120 calls would have been refused. The token bucket reserves, so each call costs
 * exactly one backend call. Whatever the machine's pace: a slow machine only makes
 * the run longer, never the count larger.
 */
class WaitingAcrossInstancesTests {

	private static final int INSTANCES = 3;

	private static final int THREADS_PER_INSTANCE = 4;

	private static final int CALLS_PER_THREAD = 10;

	private static final int CALLS = INSTANCES * THREADS_PER_INSTANCE * CALLS_PER_THREAD;

	private static final int RATE_PER_SECOND = 40;

	@ParameterizedTest
	@ValueSource(strings = { "standalone", "cluster" })
	void threeInstancesWithWaitingCallersAreAllServedAndNeverFasterThanTheRate(String redis) throws Exception {
		List<String> properties = new ArrayList<>(List.of("ratelimit.key-prefix=" + TestRedisProperties.uniquePrefix(),
				"ratelimit.timeout=" + TestRedis.TIMEOUT.toMillis() + "ms", "ratelimit.policies.partner.limits="
						+ RATE_PER_SECOND + "/1s",
				"ratelimit.policies.partner.algorithm=token-bucket", "ratelimit.policies.partner.max-wait=30s"));
		if (redis.equals("cluster")) {
			properties.add("spring.data.redis.cluster.nodes=" + EmbeddedRedisCluster.shared().nodes());
		}
		else {
			properties.add("spring.data.redis.host=" + TestRedis.get().host());
			properties.add("spring.data.redis.port=" + TestRedis.get().port());
		}
		List<ConfigurableApplicationContext> instances = new ArrayList<>();
		ExecutorService callers = Executors.newFixedThreadPool(INSTANCES * THREADS_PER_INSTANCE);
		try {
			for (int i = 0; i < INSTANCES; i++) {
				instances.add(new SpringApplicationBuilder(WorkerApplication.class).web(WebApplicationType.NONE)
					.properties(properties.toArray(String[]::new))
					.run());
			}
			StringRedisTemplate template = instances.get(0).getBean(StringRedisTemplate.class);
			long scriptsBefore = redis.equals("cluster") ? 0 : ScriptCalls.of(template);
			List<Callable<Integer>> threads = new ArrayList<>();
			for (int t = 0; t < INSTANCES * THREADS_PER_INSTANCE; t++) {
				PartnerClient client = instances.get(t % INSTANCES).getBean(PartnerClient.class);
				threads.add(() -> {
					for (int i = 0; i < CALLS_PER_THREAD; i++) {
						client.call();
					}
					return CALLS_PER_THREAD;
				});
			}
			long startMicros = RedisTime.micros(template);
			int served = 0;
			for (Future<Integer> thread : callers.invokeAll(threads)) {
				served += thread.get();
			}
			long elapsedMicros = RedisTime.micros(template) - startMicros;
			int admitted = instances.stream().mapToInt((instance) -> instance.getBean(PartnerClient.class).calls())
				.sum();
			assertThat(served).isEqualTo(CALLS);
			// the token bucket reserves: each call takes its permit, due later, with one backend call
			long backendCalls = instances.stream().mapToLong((instance) -> instance.getBean(BackendCalls.class).calls.get())
				.sum();
			assertThat(backendCalls).as("backend calls").isEqualTo(CALLS);
			assertThat(admitted).isEqualTo(CALLS);
			// a full bucket of 40, then 40 a second: 120 calls need at least 2 s of Redis' time
			double allowed = RATE_PER_SECOND + RATE_PER_SECOND * elapsedMicros / 1_000_000.0;
			assertThat((double) admitted).as("admitted in %d µs of Redis time", elapsedMicros).isLessThanOrEqualTo(allowed + 1);
			if (!redis.equals("cluster")) {
				long scripts = ScriptCalls.of(template) - scriptsBefore;
				// the token bucket reserves: each call takes its permit, due later, with one script call

				System.out.printf("Waiting (%s): %d calls over %d instances in %.2f s of Redis time (%.1f a second; rate "
						+ "%d), %d script calls (%.2f a permit)%n", redis, CALLS, INSTANCES, elapsedMicros / 1e6,
						CALLS / (elapsedMicros / 1e6), RATE_PER_SECOND, scripts, (double) scripts / CALLS);
			}
		}
		finally {
			callers.shutdownNow();
			callers.awaitTermination(10, TimeUnit.SECONDS);
			instances.forEach(ConfigurableApplicationContext::close);
		}
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ DataRedisAutoConfiguration.class, AopAutoConfiguration.class,
			RateLimitRedisAutoConfiguration.class, RateLimitAutoConfiguration.class,
			RateLimitAspectAutoConfiguration.class })
	@Import({ PartnerClient.class, BackendCalls.class })
	static class WorkerApplication {

	}

	/**
	 * Counts the decisions that called the backend.
	 */
	static class BackendCalls implements RateLimitRecorder {

		final AtomicLong calls = new AtomicLong();

		@Override
		public void record(RateLimitOutcome outcome, long backendNanos) {
			if (backendNanos >= 0) {
				this.calls.incrementAndGet();
			}
		}

	}

	/**
	 * A client of a partner API that allows a shared rate: every call waits for its permit.
	 */
	static class PartnerClient {

		private final AtomicInteger calls = new AtomicInteger();

		@RateLimited("partner")
		public void call() {
			this.calls.incrementAndGet();
		}

		public int calls() {
			return this.calls.get();
		}

	}

}
