package io.github.ratelimit.spring.annotation;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.ratelimit.autoconfigure.RateLimitAspectAutoConfiguration;
import io.github.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.ratelimit.autoconfigure.RateLimitRedisAutoConfiguration;
import io.github.ratelimit.core.Limit;
import io.github.ratelimit.spring.RateLimitCounters;
import io.github.ratelimit.spring.RateLimitExceededException;
import io.github.ratelimit.spring.RateLimitedCostException;
import io.github.ratelimit.test.TestRedisProperties;
import org.aspectj.lang.ProceedingJoinPoint;
import org.aspectj.lang.annotation.Around;
import org.aspectj.lang.annotation.Aspect;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ContextConsumer;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ApplicationContext;
import org.springframework.http.HttpHeaders;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link RateLimited} on service methods returning {@code Mono} and {@code Flux}, outside any web request, on Redis
 * and in memory: decided on each subscription, never at assembly, and refused with an error signal before the
 * method runs.
 */
class ReactiveRateLimitedMethodsTests {

	private static final Duration WAIT = Duration.ofSeconds(30);

	private void run(String backend, ContextConsumer<ApplicationContext> test) {
		ApplicationContextRunner runner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, AopAutoConfiguration.class,
					RateLimitRedisAutoConfiguration.class, RateLimitAutoConfiguration.class,
					RateLimitAspectAutoConfiguration.class))
			.withPropertyValues(TestRedisProperties.values())
			.withPropertyValues("ratelimit.backend=" + backend, "ratelimit.policies.dark.limits=1/1h",
					"ratelimit.policies.dark.shadow=true")
			.withUserConfiguration(ReactiveService.class, CountingAspect.class);
		runner.run((context) -> test.accept(context));
	}

	@ParameterizedTest
	@ValueSource(strings = { "redis", "in-memory" })
	void callingWithoutSubscribingShouldChargeNothingAndRunNothing(String backend) {
		run(backend, (context) -> {
			ReactiveService service = context.getBean(ReactiveService.class);
			Mono<String> first = service.mono("k");
			service.mono("k");
			service.mono("k");
			Flux<String> flux = service.flux("k");
			assertThat(service.invocations()).hasValue(0);
			assertThat(context.getBean(RateLimitCounters.class).of("mono").allowed()).isZero();
			StepVerifier.create(first).expectNext("k").expectComplete().verify(WAIT);
			StepVerifier.create(flux).expectNext("k-1", "k-2").expectComplete().verify(WAIT);
			assertThat(service.invocations()).hasValue(2);
		});
	}

	@ParameterizedTest
	@ValueSource(strings = { "redis", "in-memory" })
	void eachSubscriptionOfAMonoShouldBeOneCall(String backend) {
		run(backend, (context) -> {
			ReactiveService service = context.getBean(ReactiveService.class);
			Mono<String> mono = service.mono("k");
			StepVerifier.create(mono).expectNext("k").expectComplete().verify(WAIT);
			StepVerifier.create(mono).expectNext("k").expectComplete().verify(WAIT);
			StepVerifier.create(mono).expectErrorSatisfies((error) -> {
				assertThat(error).isInstanceOf(RateLimitExceededException.class);
				RateLimitExceededException refusal = (RateLimitExceededException) error;
				assertThat(refusal.getPolicy()).isEqualTo("mono");
				assertThat(refusal.getDecision().allowed()).isFalse();
				assertThat(refusal.getDecision().limit()).isEqualTo(Limit.of(2, Duration.ofHours(1)));
				assertThat(refusal.getDecision().remaining()).isZero();
				assertThat(refusal.getHeaders().getFirst(HttpHeaders.RETRY_AFTER)).isNotNull();
				assertThat(refusal.getBody().getInstance()).isNull();
			}).verify(WAIT);
			assertThat(service.invocations()).as("the method body ran for admitted subscriptions only").hasValue(2);
			assertThat(context.getBean(CountingAspect.class).calls)
				.as("advice after @RateLimited ran once per admitted subscription").hasValue(2);
			StepVerifier.create(service.mono("other")).expectNext("other").expectComplete().verify(WAIT);
		});
	}

	@ParameterizedTest
	@ValueSource(strings = { "redis", "in-memory" })
	void eachSubscriptionOfAFluxShouldBeOneCall(String backend) {
		run(backend, (context) -> {
			ReactiveService service = context.getBean(ReactiveService.class);
			Flux<String> flux = service.flux("k");
			StepVerifier.create(flux).expectNext("k-1", "k-2").expectComplete().verify(WAIT);
			StepVerifier.create(flux).expectNext("k-1", "k-2").expectComplete().verify(WAIT);
			StepVerifier.create(flux)
				.expectErrorSatisfies((error) -> assertThat(error).isInstanceOf(RateLimitExceededException.class)
					.extracting((refusal) -> ((RateLimitExceededException) refusal).getPolicy())
					.isEqualTo("flux"))
				.verify(WAIT);
			assertThat(service.invocations()).hasValue(2);
		});
	}

	@ParameterizedTest
	@ValueSource(strings = { "redis", "in-memory" })
	void costFromAnArgumentShouldBeChargedPerSubscription(String backend) {
		run(backend, (context) -> {
			ReactiveService service = context.getBean(ReactiveService.class);
			StepVerifier.create(service.units("a", 6)).expectNext(6).expectComplete().verify(WAIT);
			StepVerifier.create(service.units("a", 5)).expectError(RateLimitExceededException.class).verify(WAIT);
			StepVerifier.create(service.units("b", 10)).expectNext(10).expectComplete().verify(WAIT);
			StepVerifier.create(service.units("a", 4)).expectNext(4).expectComplete().verify(WAIT);
			assertThat(service.invocations()).hasValue(3);
		});
	}

	@ParameterizedTest
	@ValueSource(strings = { "redis", "in-memory" })
	void costAboveTheCapacityShouldBeRefusedAsNeverSatisfiable(String backend) {
		run(backend, (context) -> {
			ReactiveService service = context.getBean(ReactiveService.class);
			StepVerifier.create(service.units("a", 11))
				.expectErrorSatisfies((error) -> assertThat(error).isInstanceOf(RateLimitExceededException.class)
					.satisfies((refusal) -> {
						RateLimitExceededException exceeded = (RateLimitExceededException) refusal;
						assertThat(exceeded.getDecision().satisfiable()).isFalse();
						assertThat(exceeded.getHeaders().getFirst(HttpHeaders.RETRY_AFTER)).isNull();
					}))
				.verify(WAIT);
			assertThat(service.invocations()).hasValue(0);
		});
	}

	@ParameterizedTest
	@ValueSource(strings = { "redis", "in-memory" })
	void costBelowOneShouldBeAnErrorSignalChargingNothing(String backend) {
		run(backend, (context) -> {
			ReactiveService service = context.getBean(ReactiveService.class);
			StepVerifier.create(service.units("a", 0)).expectError(RateLimitedCostException.class).verify(WAIT);
			StepVerifier.create(service.units("a", 10)).expectNext(10).expectComplete().verify(WAIT);
			assertThat(service.invocations()).hasValue(1);
		});
	}

	@ParameterizedTest
	@ValueSource(strings = { "redis", "in-memory" })
	void shadowPolicyShouldNeverRefuseASubscription(String backend) {
		run(backend, (context) -> {
			ReactiveService service = context.getBean(ReactiveService.class);
			Mono<String> mono = service.shadowed();
			for (int i = 0; i < 3; i++) {
				StepVerifier.create(mono).expectNext("dark").expectComplete().verify(WAIT);
			}
			assertThat(context.getBean(RateLimitCounters.class).of("dark").allowed()).as("decided, never refused")
				.isEqualTo(3);
		});
	}

	@ParameterizedTest
	@ValueSource(strings = { "redis", "in-memory" })
	void methodWithSeveralPoliciesShouldStopAtTheFirstRefusal(String backend) {
		run(backend, (context) -> {
			ReactiveService service = context.getBean(ReactiveService.class);
			Mono<String> mono = service.layered();
			StepVerifier.create(mono).expectNext("layered").expectComplete().verify(WAIT);
			StepVerifier.create(mono)
				.expectErrorSatisfies((error) -> assertThat(((RateLimitExceededException) error).getPolicy())
					.isEqualTo("layer-2"))
				.verify(WAIT);
			StepVerifier.create(mono)
				.expectErrorSatisfies((error) -> assertThat(((RateLimitExceededException) error).getPolicy())
					.isEqualTo("layer-2"))
				.verify(WAIT);
			assertThat(context.getBean(RateLimitCounters.class).of("layer-1").allowed()).isEqualTo(3);
			assertThat(service.invocations()).hasValue(1);
		});
	}

	@Test
	@ExtendWith(OutputCaptureExtension.class)
	void aPlainMethodCalledOnANonBlockingThreadShouldBeWarnedOfOncePerMethod(CapturedOutput output) {
		run("in-memory", (context) -> {
			ReactiveService service = context.getBean(ReactiveService.class);
			assertThat(service.plain()).isEqualTo("plain");
			assertThat(output).doesNotContain("returns neither a reactive type nor a future");
			for (int i = 0; i < 3; i++) {
				StepVerifier.create(Mono.fromCallable(service::plain).subscribeOn(Schedulers.parallel()))
					.expectNext("plain")
					.expectComplete()
					.verify(WAIT);
			}
			String warning = "@RateLimited " + ReactiveService.class.getName() + ".plain returns neither a reactive "
					+ "type nor a future, so its decision waits for the rate limit backend, and it was called on a "
					+ "non-blocking thread (parallel-";
			assertThat(output.getOut().split(java.util.regex.Pattern.quote(warning), -1)).hasSize(2);
		});
	}

	static class ReactiveService {

		private final AtomicInteger invocations = new AtomicInteger();

		/** The calls that reached the method: read through the proxy, whose own fields are not the bean's. */
		public AtomicInteger invocations() {
			return this.invocations;
		}

		@RateLimited(name = "mono", limits = "2/1h", key = "#apiKey")
		public Mono<String> mono(String apiKey) {
			this.invocations.incrementAndGet();
			return Mono.just(apiKey);
		}

		@RateLimited(name = "flux", limits = "2/1h", key = "#apiKey")
		public Flux<String> flux(String apiKey) {
			this.invocations.incrementAndGet();
			return Flux.fromIterable(List.of(apiKey + "-1", apiKey + "-2"));
		}

		@RateLimited(name = "units", limits = "10/1h", key = "#account", cost = "#units")
		public Mono<Integer> units(String account, int units) {
			this.invocations.incrementAndGet();
			return Mono.just(units);
		}

		@RateLimited(name = "plain", limits = "100/1h")
		public String plain() {
			return "plain";
		}

		@RateLimited("dark")
		public Mono<String> shadowed() {
			return Mono.just("dark");
		}

		@RateLimited(name = "layer-1", limits = "5/1h")
		@RateLimited(name = "layer-2", limits = "1/1h")
		public Mono<String> layered() {
			this.invocations.incrementAndGet();
			return Mono.just("layered");
		}

	}

	/**
	 * Advice ordered after {@code @RateLimited}'s, which must run once per admitted subscription and see its join
	 * point whatever thread the subscription continues on.
	 */
	@Aspect
	static class CountingAspect {

		final AtomicInteger calls = new AtomicInteger();

		@Around("execution(* io.github.ratelimit.spring.annotation.ReactiveRateLimitedMethodsTests.ReactiveService.mono(..))")
		Object count(ProceedingJoinPoint joinPoint) throws Throwable {
			assertThat(joinPoint.getArgs()).hasSize(1);
			this.calls.incrementAndGet();
			return joinPoint.proceed();
		}

	}

}
