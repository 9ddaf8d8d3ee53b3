package io.github.ratelimit.spring.annotation;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.ratelimit.autoconfigure.RateLimitAspectAutoConfiguration;
import io.github.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.ratelimit.autoconfigure.RateLimitMetricsAutoConfiguration;
import io.github.ratelimit.autoconfigure.RateLimitRedisAutoConfiguration;
import io.github.ratelimit.spring.metrics.RateLimitMetrics;
import io.github.ratelimit.test.TestRedisProperties;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Reactive methods that wait for their permit, under BlockHound (this class runs in the {@code webflux} test
 * execution): subscribed on Reactor's parallel scheduler, where any blocking call fails, a {@code Mono} and a
 * {@code Flux} wait for their permit on a real Redis and then run; a subscriber that goes away gives its place in line
 * up.
 */
class ReactiveWaitingTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, AopAutoConfiguration.class,
				RateLimitRedisAutoConfiguration.class, RateLimitAutoConfiguration.class,
				RateLimitAspectAutoConfiguration.class, RateLimitMetricsAutoConfiguration.class))
		.withBean(SimpleMeterRegistry.class)
		.withPropertyValues(TestRedisProperties.values())
		.withUserConfiguration(ReactiveJobs.class);

	@Test
	void monoAndFluxMethodsShouldWaitForTheirPermitWithoutBlockingAThread() {
		this.contextRunner.withPropertyValues("ratelimit.policies.paced.limits=1/200ms").run((context) -> {
			ReactiveJobs jobs = context.getBean(ReactiveJobs.class);
			long start = System.nanoTime();
			List<String> results = Flux
				.merge(jobs.one("a").subscribeOn(Schedulers.parallel()), jobs.one("b").subscribeOn(Schedulers.parallel()),
						jobs.many("c").subscribeOn(Schedulers.parallel()).collectList().map(String::valueOf))
				.collectList()
				.block(Duration.ofSeconds(30));
			assertThat(results).containsExactlyInAnyOrder("a", "b", "[c, c]");
			assertThat(jobs.threads()).as("threads the methods ran on").noneMatch((name) -> name.startsWith("ratelimit-wait"));
			// three permits, one every 200 ms: the last waited for two of them
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(350));
			assertThat(context.getBean(SimpleMeterRegistry.class).get(RateLimitMetrics.WAIT)
				.tags("policy", "paced", "outcome", "admitted").timer().count()).isEqualTo(3);
		});
	}

	@Test
	void aSubscriberThatGoesAwayShouldGiveItsPlaceUp() {
		this.contextRunner.withPropertyValues("ratelimit.policies.paced.limits=1/20s").run((context) -> {
			ReactiveJobs jobs = context.getBean(ReactiveJobs.class);
			assertThat(jobs.one("first").block(Duration.ofSeconds(30))).isEqualTo("first");
			Disposable waiting = jobs.one("second").subscribeOn(Schedulers.parallel()).subscribe();
			SimpleMeterRegistry registry = context.getBean(SimpleMeterRegistry.class);
			awaitGauge(registry, 1);
			waiting.dispose();
			awaitGauge(registry, 0);
			assertThat(registry.get(RateLimitMetrics.WAIT).tags("policy", "paced", "outcome", "cancelled").timer()
				.count()).isEqualTo(1);
		});
	}

	private static void awaitGauge(SimpleMeterRegistry registry, int waiters) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		while (registry.find(RateLimitMetrics.WAITERS).tag("policy", "paced").gauge() == null
				|| registry.get(RateLimitMetrics.WAITERS).tag("policy", "paced").gauge().value() != waiters) {
			assertThat(System.nanoTime()).as("%d waiters", waiters).isLessThan(deadline);
			Thread.sleep(5);
		}
	}

	static class ReactiveJobs {

		private final List<String> threads = new java.util.concurrent.CopyOnWriteArrayList<>();

		public List<String> threads() {
			return this.threads;
		}

		@RateLimited(value = "paced", maxWait = "30s")
		public Mono<String> one(String name) {
			return Mono.fromSupplier(() -> {
				this.threads.add(Thread.currentThread().getName());
				return name;
			});
		}

		@RateLimited(value = "paced", maxWait = "30s")
		public Flux<String> many(String name) {
			return Flux.just(name, name);
		}

	}

}
