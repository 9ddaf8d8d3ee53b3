package io.github.ratelimit.spring.annotation;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.ratelimit.autoconfigure.RateLimitAspectAutoConfiguration;
import io.github.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.ratelimit.autoconfigure.RateLimitRedisAutoConfiguration;
import io.github.ratelimit.spring.RateLimitExceededException;
import io.github.ratelimit.test.TestRedisProperties;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Reactive {@link RateLimited} methods of three application instances (contexts with limiters and connections of
 * their own) on one Redis, subscribed to from many threads at once: exactly the limit is admitted.
 */
class ReactiveRateLimitedConcurrencyTests {

	private static final int LIMIT = 60;

	private static final int THREADS = 6;

	private static final int SUBSCRIPTIONS_PER_THREAD = 25;

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, AopAutoConfiguration.class,
				RateLimitRedisAutoConfiguration.class, RateLimitAutoConfiguration.class,
				RateLimitAspectAutoConfiguration.class))
		// one key prefix for the three instances, as one application deployed three times
		.withPropertyValues(TestRedisProperties.values())
		.withUserConfiguration(SharedService.class);

	@Test
	void threeInstancesShouldAdmitExactlyTheLimitOfMonoAndFluxSubscriptions() {
		this.contextRunner.run((first) -> this.contextRunner.run((second) -> this.contextRunner.run((third) -> {
			List<SharedService> instances = List.of(first.getBean(SharedService.class),
					second.getBean(SharedService.class), third.getBean(SharedService.class));
			AtomicInteger admitted = new AtomicInteger();
			AtomicInteger refused = new AtomicInteger();
			CountDownLatch start = new CountDownLatch(1);
			ExecutorService threads = Executors.newFixedThreadPool(THREADS);
			try {
				List<Future<?>> load = new ArrayList<>();
				for (int thread = 0; thread < THREADS; thread++) {
					int offset = thread;
					load.add(threads.submit(() -> {
						start.await();
						for (int i = 0; i < SUBSCRIPTIONS_PER_THREAD; i++) {
							SharedService instance = instances.get((offset + i) % instances.size());
							Mono<?> call = ((i % 2) == 0) ? instance.mono() : instance.flux().collectList();
							try {
								call.block(Duration.ofSeconds(30));
								admitted.incrementAndGet();
							}
							catch (RateLimitExceededException ex) {
								refused.incrementAndGet();
							}
						}
						return null;
					}));
				}
				start.countDown();
				for (Future<?> thread : load) {
					thread.get(5, TimeUnit.MINUTES);
				}
			}
			finally {
				threads.shutdown();
			}
			assertThat(admitted).hasValue(LIMIT);
			assertThat(refused).hasValue(THREADS * SUBSCRIPTIONS_PER_THREAD - LIMIT);
			assertThat(instances.stream().mapToInt((instance) -> instance.invocations().get()).sum()).isEqualTo(LIMIT);
		})));
	}

	static class SharedService {

		private final AtomicInteger invocations = new AtomicInteger();

		/** The calls that reached the method: read through the proxy, whose own fields are not the bean's. */
		public AtomicInteger invocations() {
			return this.invocations;
		}

		@RateLimited(name = "shared", limits = "60/1h")
		public Mono<String> mono() {
			this.invocations.incrementAndGet();
			return Mono.just("mono");
		}

		@RateLimited(name = "shared", limits = "60/1h")
		public Flux<String> flux() {
			this.invocations.incrementAndGet();
			return Flux.just("a", "b");
		}

	}

}
