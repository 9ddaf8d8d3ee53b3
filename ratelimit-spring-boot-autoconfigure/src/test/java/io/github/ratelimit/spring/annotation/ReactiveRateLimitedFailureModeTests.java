package io.github.ratelimit.spring.annotation;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.ratelimit.autoconfigure.RateLimitAspectAutoConfiguration;
import io.github.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.ratelimit.autoconfigure.RateLimitRedisAutoConfiguration;
import io.github.ratelimit.spring.RateLimitCounters;
import io.github.ratelimit.spring.RateLimitExceededException;
import io.github.ratelimit.spring.RateLimitOutcome;
import io.github.ratelimit.spring.RateLimiterUnavailableException;
import io.github.ratelimit.test.RedisOutage;
import io.github.ratelimit.test.TestRedis;
import io.github.ratelimit.test.TestRedis.EmbeddedRedis;
import io.github.ratelimit.test.TestRedisProperties;
import io.lettuce.core.resource.ClientResources;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.http.HttpStatus;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Reactive {@link RateLimited} methods while their Redis is down: each policy's failure mode decides every
 * subscription, as it decides the filter's requests ({@code open} admits, {@code closed} refuses with the 503 error,
 * {@code local} decides with this instance's limiter).
 */
class ReactiveRateLimitedFailureModeTests {

	private static final Duration WAIT = Duration.ofSeconds(30);

	private EmbeddedRedis redis;

	private ApplicationContextRunner contextRunner;

	@BeforeEach
	void startRedis() {
		this.redis = EmbeddedRedis.start(TestRedis.freePort());
		this.contextRunner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, AopAutoConfiguration.class,
					RateLimitRedisAutoConfiguration.class, RateLimitAutoConfiguration.class,
					RateLimitAspectAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + this.redis.port(),
					"ratelimit.key-prefix=" + TestRedisProperties.uniquePrefix(), "ratelimit.timeout=500ms",
					"ratelimit.policies.opened.limits=1/1h", "ratelimit.policies.opened.failure-mode=open",
					"ratelimit.policies.closed.limits=1/1h", "ratelimit.policies.closed.failure-mode=closed",
					"ratelimit.policies.local.limits=2/1h", "ratelimit.policies.local.failure-mode=local")
			.withUserConfiguration(DependentService.class);
	}

	@AfterEach
	void stopRedis() {
		this.redis.stop();
	}

	@Test
	void failOpenShouldAdmitEverySubscriptionWhileRedisIsDown() {
		whileRedisIsDown((service, counters) -> {
			Mono<String> call = service.opened();
			for (int i = 0; i < 3; i++) {
				StepVerifier.create(call).expectNext("opened").expectComplete().verify(WAIT);
			}
			assertThat(counters.of("opened").failed()).isEqualTo(3);
		});
	}

	@Test
	void failClosedShouldRefuseEverySubscriptionWithTheUnavailableError() {
		whileRedisIsDown((service, counters) -> {
			StepVerifier.create(service.closed())
				.expectErrorSatisfies((error) -> assertThat(error).isInstanceOf(RateLimiterUnavailableException.class)
					.extracting((unavailable) -> ((RateLimiterUnavailableException) unavailable).getStatusCode())
					.isEqualTo(HttpStatus.SERVICE_UNAVAILABLE))
				.verify(WAIT);
			assertThat(service.invocations()).hasValue(0);
		});
	}

	@Test
	void failLocalShouldDecideWithThisInstancesLimiter() {
		whileRedisIsDown((service, counters) -> {
			Mono<String> call = service.local();
			StepVerifier.create(call).expectNext("local").expectComplete().verify(WAIT);
			StepVerifier.create(call).expectNext("local").expectComplete().verify(WAIT);
			StepVerifier.create(call)
				.expectErrorSatisfies((error) -> assertThat(((RateLimitExceededException) error).getOutcome().kind())
					.isEqualTo(RateLimitOutcome.Kind.FALLBACK))
				.verify(WAIT);
			assertThat(service.invocations()).hasValue(2);
		});
	}

	private void whileRedisIsDown(DownTest test) {
		this.contextRunner.run((context) -> {
			DependentService service = context.getBean(DependentService.class);
			// one decision on Redis first, so that the limiters and their connection exist before it goes
			StepVerifier.create(service.local()).expectNext("local").expectComplete().verify(WAIT);
			service.invocations().set(0);
			RedisOutage.stop(this.redis, context.getBean(ClientResources.class));
			test.run(service, context.getBean(RateLimitCounters.class));
		});
	}

	@FunctionalInterface
	private interface DownTest {

		void run(DependentService service, RateLimitCounters counters) throws Exception;

	}

	static class DependentService {

		private final AtomicInteger invocations = new AtomicInteger();

		/** The calls that reached the method: read through the proxy, whose own fields are not the bean's. */
		public AtomicInteger invocations() {
			return this.invocations;
		}

		@RateLimited("opened")
		public Mono<String> opened() {
			this.invocations.incrementAndGet();
			return Mono.just("opened");
		}

		@RateLimited("closed")
		public Mono<String> closed() {
			this.invocations.incrementAndGet();
			return Mono.just("closed");
		}

		@RateLimited("local")
		public Mono<String> local() {
			this.invocations.incrementAndGet();
			return Mono.just("local");
		}

	}

}
