package io.github.ratelimit.spring.annotation;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.github.ratelimit.autoconfigure.RateLimitAspectAutoConfiguration;
import io.github.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.Policy;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.core.RateLimiterBackend;
import io.github.ratelimit.core.memory.InMemoryRateLimiterBackend;
import io.github.ratelimit.spring.RateLimitExceededException;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Reactive and future-returning {@link RateLimited} methods with a backend whose client blocks (as Jedis does):
 * decisions are made on threads that may block, never on the subscriber's or the caller's.
 */
class ReactiveRateLimitedBlockingBackendTests {

	private static final Duration WAIT = Duration.ofSeconds(30);

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, TaskExecutionAutoConfiguration.class,
				RateLimitAutoConfiguration.class, RateLimitAspectAutoConfiguration.class))
		.withUserConfiguration(BlockingBackendConfiguration.class, Service.class);

	@Test
	void subscriptionOnAnEventLoopShouldBeDecidedOnTheBoundedElasticScheduler() {
		this.contextRunner.run((context) -> {
			Service service = context.getBean(Service.class);
			BlockingBackend backend = context.getBean(BlockingBackend.class);
			Mono<String> call = service.mono().subscribeOn(Schedulers.parallel());
			StepVerifier.create(call).expectNext("mono").expectComplete().verify(WAIT);
			StepVerifier.create(call).expectError(RateLimitExceededException.class).verify(WAIT);
			assertThat(backend.deciders).hasSize(2).allSatisfy((thread) -> assertThat(thread).startsWith("boundedElastic-"));
		});
	}

	@Test
	void futureShouldBeDecidedAndRunOnTheTaskExecutor() {
		this.contextRunner.run((context) -> {
			Service service = context.getBean(Service.class);
			BlockingBackend backend = context.getBean(BlockingBackend.class);
			assertThat(service.future().get(WAIT.toSeconds(), TimeUnit.SECONDS)).startsWith("task-");
			Throwable refusal = service.future().handle((value, error) -> error).get(WAIT.toSeconds(), TimeUnit.SECONDS);
			assertThat(refusal).isInstanceOf(RateLimitExceededException.class);
			assertThat(backend.deciders).hasSize(2).allSatisfy((thread) -> assertThat(thread).startsWith("task-"));
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class BlockingBackendConfiguration {

		@Bean
		BlockingBackend blockingBackend() {
			return new BlockingBackend();
		}

	}

	/**
	 * The in-memory backend, saying it blocks, and noting the threads its limiters decide on.
	 */
	static class BlockingBackend implements RateLimiterBackend {

		final List<String> deciders = new CopyOnWriteArrayList<>();

		private final InMemoryRateLimiterBackend memory = new InMemoryRateLimiterBackend();

		@Override
		public RateLimiter create(Policy policy) {
			RateLimiter limiter = this.memory.create(policy);
			return new RateLimiter() {

				@Override
				public Policy policy() {
					return limiter.policy();
				}

				@Override
				public Decision tryAcquire(String key, long permits) {
					BlockingBackend.this.deciders.add(Thread.currentThread().getName());
					return limiter.tryAcquire(key, permits);
				}

				@Override
				public CompletionStage<Decision> tryAcquireAsync(String key, long permits) {
					return CompletableFuture.completedFuture(tryAcquire(key, permits));
				}

				@Override
				public Decision peek(String key) {
					return limiter.peek(key);
				}

				@Override
				public void reset(String key) {
					limiter.reset(key);
				}

			};
		}

		@Override
		public String name() {
			return "blocking";
		}

		@Override
		public boolean blocking() {
			return true;
		}

	}

	static class Service {

		@RateLimited(name = "mono", limits = "1/1h")
		public Mono<String> mono() {
			return Mono.just("mono");
		}

		@RateLimited(name = "future", limits = "1/1h")
		public CompletableFuture<String> future() {
			return CompletableFuture.completedFuture(Thread.currentThread().getName());
		}

	}

}
