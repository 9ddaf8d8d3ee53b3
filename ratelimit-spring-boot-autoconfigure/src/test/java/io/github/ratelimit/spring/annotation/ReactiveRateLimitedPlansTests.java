package io.github.ratelimit.spring.annotation;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletionStage;

import io.github.ratelimit.autoconfigure.RateLimitAspectAutoConfiguration;
import io.github.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.ratelimit.autoconfigure.RateLimitRedisAutoConfiguration;
import io.github.ratelimit.core.Limit;
import io.github.ratelimit.spring.PlanResolver;
import io.github.ratelimit.spring.RateLimitExceededException;
import io.github.ratelimit.spring.RateLimitRequest;
import io.github.ratelimit.test.TestRedisProperties;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link RateLimited} on methods returning {@code Mono} that name a configured policy with plans, on Redis, outside
 * any web request: the plan a resolver answers later (on a timer's thread, never blocking) decides, its cost applies
 * unless the annotation gives one, and a refusal names the plan.
 */
class ReactiveRateLimitedPlansTests {

	private static final Duration WAIT = Duration.ofSeconds(30);

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, AopAutoConfiguration.class,
				RateLimitRedisAutoConfiguration.class, RateLimitAutoConfiguration.class,
				RateLimitAspectAutoConfiguration.class))
		.withPropertyValues(TestRedisProperties.values())
		.withPropertyValues("ratelimit.policies.orders.plan=bean:laterPlans",
				"ratelimit.policies.orders.default-plan=free", "ratelimit.policies.orders.plans.free.limits=10/1h",
				"ratelimit.policies.orders.plans.pro.limits=100/1h", "ratelimit.policies.orders.plans.pro.cost=2")
		.withBean("laterPlans", PlanResolver.class, LaterPlans::new)
		.withUserConfiguration(OrderService.class);

	@Test
	void clientOnTheFreePlanShouldGetItsLimitAtItsCost() {
		this.runner.run((context) -> {
			OrderService orders = context.getBean(OrderService.class);
			String key = "free-" + UUID.randomUUID();
			for (int i = 0; i < 10; i++) {
				StepVerifier.create(orders.order(key)).expectNext(key).expectComplete().verify(WAIT);
			}
			assertRefused(orders.order(key), "free", Limit.parse("10/1h"));
		});
	}

	@Test
	void clientOnTheProPlanShouldGetItsLimitAtItsCost() {
		this.runner.run((context) -> {
			OrderService orders = context.getBean(OrderService.class);
			String key = "pro-" + UUID.randomUUID();
			for (int i = 0; i < 50; i++) {
				StepVerifier.create(orders.order(key)).expectNext(key).expectComplete().verify(WAIT);
			}
			assertRefused(orders.order(key), "pro", Limit.parse("100/1h"));
		});
	}

	@Test
	void annotationsCostShouldWinOverThePlansCost() {
		this.runner.run((context) -> {
			OrderService orders = context.getBean(OrderService.class);
			String pro = "pro-" + UUID.randomUUID();
			for (int i = 0; i < 20; i++) {
				StepVerifier.create(orders.bulk(pro)).expectNext(pro).expectComplete().verify(WAIT);
			}
			assertRefused(orders.order(pro), "pro", Limit.parse("100/1h"));
			String free = "free-" + UUID.randomUUID();
			StepVerifier.create(orders.bulk(free)).expectNext(free).expectComplete().verify(WAIT);
			StepVerifier.create(orders.bulk(free)).expectNext(free).expectComplete().verify(WAIT);
			assertRefused(orders.order(free), "free", Limit.parse("10/1h"));
		});
	}

	private static void assertRefused(Mono<String> call, String plan, Limit limit) {
		StepVerifier.create(call).expectErrorSatisfies((error) -> {
			assertThat(error).isInstanceOf(RateLimitExceededException.class);
			RateLimitExceededException refusal = (RateLimitExceededException) error;
			assertThat(refusal.getPolicy()).isEqualTo("orders");
			assertThat(refusal.getDecision().limit()).isEqualTo(limit);
			assertThat(refusal.getBody().getProperties()).containsEntry("plan", plan);
		}).verify(WAIT);
	}

	static class OrderService {

		@RateLimited(name = "orders", key = "#apiKey")
		public Mono<String> order(String apiKey) {
			return Mono.just(apiKey);
		}

		@RateLimited(name = "orders", key = "#apiKey", cost = "5")
		public Mono<String> bulk(String apiKey) {
			return Mono.just(apiKey);
		}

	}

	/**
	 * Plans looked up without blocking, answered later on a timer's thread: {@code pro} for keys starting {@code pro-}.
	 */
	static class LaterPlans implements PlanResolver {

		@Override
		public String resolvePlan(String key, @Nullable RateLimitRequest request) {
			throw new IllegalStateException("A reactive caller must ask resolvePlanAsync");
		}

		@Override
		public CompletionStage<@Nullable String> resolvePlanAsync(String key, @Nullable RateLimitRequest request) {
			return Mono.delay(Duration.ofMillis(10))
				.map((ignored) -> key.startsWith("pro-") ? "pro" : "free")
				.toFuture();
		}

	}

}
