package io.github.ratelimit.spring.annotation;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.github.ratelimit.autoconfigure.RateLimitActuatorAutoConfiguration;
import io.github.ratelimit.autoconfigure.RateLimitAspectAutoConfiguration;
import io.github.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.ratelimit.autoconfigure.RateLimitMetricsAutoConfiguration;
import io.github.ratelimit.autoconfigure.RateLimitRedisAutoConfiguration;
import io.github.ratelimit.spring.RateLimitExceededException;
import io.github.ratelimit.spring.RateLimiterUnavailableException;
import io.github.ratelimit.spring.actuate.RateLimitsEndpoint;
import io.github.ratelimit.spring.metrics.RateLimitMetrics;
import io.github.ratelimit.test.TestRedis;
import io.github.ratelimit.test.TestRedis.EmbeddedRedis;
import io.github.ratelimit.test.TestRedisProperties;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@code @RateLimited(maxWait = ...)} and {@code ratelimit.policies.<name>.max-wait} on a real Redis, outside any web request:
 * callers of one key served in arrival order, a blocking caller interrupted, a call that cannot be served in time
 * refused at once, a future-returning method that waits without its caller's thread, the failure modes while waiting,
 * the meters, and the start-up checks. Orders and counts, never how fast the machine is.
 */
class RateLimitedWaitingTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, AopAutoConfiguration.class,
				RateLimitRedisAutoConfiguration.class, RateLimitAutoConfiguration.class,
				RateLimitAspectAutoConfiguration.class, RateLimitMetricsAutoConfiguration.class,
				TaskExecutionAutoConfiguration.class))
		.withBean(SimpleMeterRegistry.class)
		.withUserConfiguration(Jobs.class);

	@Test
	void callersOfOneKeyShouldBeServedInArrivalOrder() {
		this.contextRunner.withPropertyValues(TestRedisProperties.values())
			.withPropertyValues("ratelimit.policies.ordered.limits=1/100ms", "ratelimit.policies.ordered.max-wait=20s")
			.run((context) -> {
				Jobs jobs = context.getBean(Jobs.class);
				jobs.ordered(-1);
				List<Thread> callers = new ArrayList<>();
				for (int i = 0; i < 5; i++) {
					int caller = i;
					Thread thread = new Thread(() -> jobs.ordered(caller));
					thread.start();
					callers.add(thread);
					// joined the line: waiting now, or already served
					awaitJoined(context, jobs, i + 1);
				}
				for (Thread thread : callers) {
					thread.join(30_000);
				}
				assertThat(jobs.served()).containsExactly(-1, 0, 1, 2, 3, 4);
				SimpleMeterRegistry registry = context.getBean(SimpleMeterRegistry.class);
				assertThat(registry.get(RateLimitMetrics.WAIT).tags("policy", "ordered", "outcome", "admitted").timer()
					.count()).isEqualTo(6);
				assertThat(waiters(context, "ordered")).isZero();
			});
	}

	@Test
	void anInterruptedBlockingCallerShouldStopWaitingAndKeepItsInterrupt() {
		this.contextRunner.withPropertyValues(TestRedisProperties.values())
						.run((context) -> {
				Jobs jobs = context.getBean(Jobs.class);
				jobs.rare();
				AtomicReference<Throwable> thrown = new AtomicReference<>();
				AtomicReference<Boolean> interrupted = new AtomicReference<>();
				Thread caller = new Thread(() -> {
					try {
						jobs.rare();
					}
					catch (Throwable ex) {
						thrown.set(ex);
					}
					interrupted.set(Thread.currentThread().isInterrupted());
				});
				caller.start();
				awaitWaiters(context, "rare", 1);
				caller.interrupt();
				caller.join(30_000);
				assertThat(thrown.get()).isInstanceOf(CancellationException.class);
				assertThat(interrupted.get()).isTrue();
				assertThat(waiters(context, "rare")).isZero();
				assertThat(context.getBean(SimpleMeterRegistry.class).get(RateLimitMetrics.WAIT)
					.tags("policy", "rare", "outcome", "cancelled").timer().count()).isEqualTo(1);
			});
	}

	@Test
	void aCallWhoseNextPermitComesAfterItsWaitShouldBeRefusedAtOnce() {
		this.contextRunner.withPropertyValues(TestRedisProperties.values())
			.withPropertyValues("ratelimit.policies.hourly.limits=1/1h", "ratelimit.policies.hourly.max-wait=2s")
			.run((context) -> {
				Jobs jobs = context.getBean(Jobs.class);
				jobs.hourly();
				assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(jobs::hourly)
					.satisfies((refusal) -> assertThat(refusal.getDecision().retryAfter())
						.isGreaterThan(Duration.ofMinutes(59)));
				io.micrometer.core.instrument.Timer gaveUp = context.getBean(SimpleMeterRegistry.class)
					.get(RateLimitMetrics.WAIT).tags("policy", "hourly", "outcome", "gave-up").timer();
				assertThat(gaveUp.count()).isEqualTo(1);
				// at once: one Redis call, the refusal that said the next permit is an hour away
				assertThat(requests(context.getBean(SimpleMeterRegistry.class), "hourly", "denied")).isEqualTo(1);
			});
	}

	@Test
	void theAnnotationsWaitShouldOverrideThePolicysAndZeroShouldRefuseAtOnce() {
		this.contextRunner.withPropertyValues(TestRedisProperties.values())
			.withPropertyValues("ratelimit.policies.never.limits=1/1s", "ratelimit.policies.never.max-wait=10s")
			.run((context) -> {
				Jobs jobs = context.getBean(Jobs.class);
				jobs.never();
				assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(jobs::never);
				assertThat(context.getBean(SimpleMeterRegistry.class).find(RateLimitMetrics.WAIT).timers()).isEmpty();
			});
	}

	@Test
	void aFutureMethodShouldWaitWithoutItsCallersThread() {
		this.contextRunner.withPropertyValues(TestRedisProperties.values())
						.run((context) -> {
				Jobs jobs = context.getBean(Jobs.class);
				long start = System.nanoTime(); // before the first permit: the second comes 300 ms after it
				assertThat(jobs.later().get(30, TimeUnit.SECONDS)).isEqualTo("done");
				CompletableFuture<String> waiting = jobs.later();
				assertThat(waiting).as("returned before its permit").isNotDone();
				assertThat(waiting.get(30, TimeUnit.SECONDS)).isEqualTo("done");
				assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(200));
			});
	}

	@Test
	void aCancelledFutureShouldGiveItsPlaceUp() {
		this.contextRunner.withPropertyValues(TestRedisProperties.values()).run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			assertThat(jobs.rareLater().get(30, TimeUnit.SECONDS)).isEqualTo("done");
			CompletableFuture<String> waiting = jobs.rareLater();
			awaitWaiters(context, "rare-later", 1);
			waiting.cancel(false);
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
			while (waiters(context, "rare-later") > 0 && System.nanoTime() < deadline) {
				Thread.sleep(5);
			}
			assertThat(waiters(context, "rare-later")).isZero();
			assertThat(context.getBean(SimpleMeterRegistry.class).get(RateLimitMetrics.WAIT)
				.tags("policy", "rare-later", "outcome", "cancelled").timer().count()).isEqualTo(1);
		});
	}

	@Test
	void whileRedisIsDownFailClosedShouldRefuseAtOnceFailOpenAdmitAndTheLocalFallbackWaitOnItsLimiter() {
		EmbeddedRedis redis = EmbeddedRedis.start(TestRedis.freePort());
		int port = redis.port();
		redis.stop();
		this.contextRunner
			.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + port,
					"ratelimit.key-prefix=" + TestRedisProperties.uniquePrefix(), "ratelimit.timeout=1s",
					"ratelimit.policies.closed.limits=1/100ms", "ratelimit.policies.closed.failure-mode=closed",
					"ratelimit.policies.opened.limits=1/100ms", "ratelimit.policies.opened.failure-mode=open",
					"ratelimit.policies.local.limits=1/300ms", "ratelimit.policies.local.failure-mode=local")
			.run((context) -> {
				Jobs jobs = context.getBean(Jobs.class);
				assertThatExceptionOfType(RateLimiterUnavailableException.class).isThrownBy(jobs::closed);
				jobs.opened();
				jobs.opened();
				long start = System.nanoTime(); // before the first permit: the second comes 300 ms after it
				jobs.local();
				jobs.local();
				assertThat(Duration.ofNanos(System.nanoTime() - start)).as("waited for the local limiter's permit")
					.isGreaterThanOrEqualTo(Duration.ofMillis(200));
				SimpleMeterRegistry registry = context.getBean(SimpleMeterRegistry.class);
				assertThat(requests(registry, "closed", "failed-closed")).isEqualTo(1);
				assertThat(requests(registry, "opened", "failed-open")).isEqualTo(2);
				assertThat(requests(registry, "local", "fallback")).isGreaterThanOrEqualTo(3);
				assertThat(registry.get(RateLimitMetrics.WAIT).tags("policy", "closed", "outcome", "refused").timer()
					.count()).isEqualTo(1);
				assertThat(registry.get(RateLimitMetrics.WAIT).tags("policy", "local", "outcome", "admitted").timer()
					.count()).isEqualTo(2);
			});
	}

	@Test
	void theEndpointShouldShowAPolicysMaximumWait() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(RateLimitRedisAutoConfiguration.class,
					RateLimitAutoConfiguration.class, RateLimitActuatorAutoConfiguration.class))
			.withPropertyValues("ratelimit.backend=in-memory", "management.endpoints.web.exposure.include=ratelimits",
					"ratelimit.policies.paced.limits=1/1s", "ratelimit.policies.paced.max-wait=2s",
					"ratelimit.policies.prompt.limits=1/1s")
			.run((context) -> {
				Map<String, RateLimitsEndpoint.PolicyReport> policies = context.getBean(RateLimitsEndpoint.class)
					.rateLimits()
					.policies();
				assertThat(policies.get("paced").maxWait()).isEqualTo("PT2S");
				assertThat(policies.get("prompt").maxWait()).isNull();
			});
	}

	@Test
	void aNegativeWaitShouldFailStartUpNamingTheProperty() {
		this.contextRunner.withPropertyValues(TestRedisProperties.values())
			.withPropertyValues("ratelimit.policies.ordered.limits=1/1s", "ratelimit.policies.ordered.max-wait=-1s")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("ratelimit.policies.ordered.max-wait"));
	}

	@Test
	void aWaitOnAShadowPolicyShouldFailStartUpNamingTheProperty() {
		this.contextRunner.withPropertyValues(TestRedisProperties.values())
			.withPropertyValues("ratelimit.policies.ordered.limits=1/1s", "ratelimit.policies.ordered.max-wait=1s",
					"ratelimit.policies.ordered.shadow=true")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("ratelimit.policies.ordered.max-wait")
				.hasMessageContaining("shadow"));
	}

	@Test
	void anAnnotationWaitThatIsNotADurationShouldFailStartUpNamingTheMethod() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, AopAutoConfiguration.class,
					RateLimitRedisAutoConfiguration.class, RateLimitAutoConfiguration.class,
					RateLimitAspectAutoConfiguration.class))
			.withPropertyValues(TestRedisProperties.values())
			.withUserConfiguration(BadWait.class)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining("Invalid @RateLimited on " + BadWait.class.getName() + ".call")
				.hasStackTraceContaining("the maxWait 'soon' is not a duration"));
	}

	private static double requests(SimpleMeterRegistry registry, String policy, String outcome) {
		return registry.get(RateLimitMetrics.REQUESTS).tags("policy", policy, "outcome", outcome).counter().count();
	}

	private static double waiters(ConfigurableApplicationContext context, String policy) {
		return context.getBean(SimpleMeterRegistry.class).get(RateLimitMetrics.WAITERS).tag("policy", policy).gauge()
			.value();
	}

	private static void awaitJoined(ConfigurableApplicationContext context, Jobs jobs, int count)
			throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		while (context.getBean(SimpleMeterRegistry.class).find(RateLimitMetrics.WAITERS).tag("policy", "ordered")
			.gauge() == null || waiters(context, "ordered") + jobs.served().size() - 1 < count) {
			assertThat(System.nanoTime()).as("%d callers in line", count).isLessThan(deadline);
			Thread.sleep(1);
		}
	}

	private static void awaitWaiters(ConfigurableApplicationContext context, String policy, int count)
			throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		while (context.getBean(SimpleMeterRegistry.class).find(RateLimitMetrics.WAITERS).tag("policy", policy)
			.gauge() == null || waiters(context, policy) < count) {
			assertThat(System.nanoTime()).as("%d waiters of %s", count, policy).isLessThan(deadline);
			Thread.sleep(5);
		}
	}

	static class Jobs {

		private final List<Integer> served = new CopyOnWriteArrayList<>();

		public List<Integer> served() {
			return this.served;
		}

		@RateLimited(value = "ordered", limits = "1/100ms")
		public void ordered(int caller) {
			this.served.add(caller);
		}

		@RateLimited(value = "rare", limits = "1/20s", maxWait = "30s")
		public void rare() {
		}

		@RateLimited(value = "hourly", limits = "1/1h")
		public void hourly() {
		}

		@RateLimited(value = "never", limits = "1/1s", maxWait = "0")
		public void never() {
		}

		@RateLimited(value = "later", limits = "1/300ms", maxWait = "10s")
		public CompletableFuture<String> later() {
			return CompletableFuture.completedFuture("done");
		}

		@RateLimited(value = "rare-later", limits = "1/20s", maxWait = "30s")
		public CompletableFuture<String> rareLater() {
			return CompletableFuture.completedFuture("done");
		}

		@RateLimited(value = "closed", limits = "1/100ms", maxWait = "10s")
		public void closed() {
		}

		@RateLimited(value = "opened", limits = "1/100ms", maxWait = "10s")
		public void opened() {
		}

		@RateLimited(value = "local", limits = "1/300ms", maxWait = "10s")
		public void local() {
		}

	}

	static class BadWait {

		@RateLimited(limits = "1/1s", maxWait = "soon")
		public void call() {
		}

	}

}
