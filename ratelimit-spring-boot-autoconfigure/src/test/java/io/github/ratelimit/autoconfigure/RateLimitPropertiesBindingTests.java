package io.github.ratelimit.autoconfigure;

import java.time.Duration;
import java.util.List;

import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.core.Limit;
import io.github.ratelimit.spring.FailureMode;
import io.github.ratelimit.spring.RateLimitRegistry;
import io.github.ratelimit.autoconfigure.RateLimitProperties.HeaderStyle;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ContextConsumer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for binding {@link RateLimitProperties}.
 */
class RateLimitPropertiesBindingTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RateLimitRedisAutoConfiguration.class, RateLimitAutoConfiguration.class))
		.withPropertyValues("ratelimit.backend=in-memory");

	@Test
	void defaultsShouldMatchTheContract() {
		this.contextRunner.run((context) -> {
			RateLimitProperties properties = context.getBean(RateLimitProperties.class);
			assertThat(properties.isEnabled()).isTrue();
			assertThat(new RateLimitProperties().getBackend()).isEqualTo(RateLimitProperties.Backend.REDIS);
			assertThat(properties.getKeyPrefix()).isEqualTo("ratelimit");
			assertThat(properties.getAlgorithm()).isEqualTo(Algorithm.TOKEN_BUCKET);
			assertThat(properties.getHeaders()).isEqualTo(HeaderStyle.BOTH);
			assertThat(properties.getTimeout()).isEqualTo(Duration.ofMillis(100));
			assertThat(properties.getFailureMode()).isEqualTo(FailureMode.OPEN);
			assertThat(properties.getFallback().getInstances()).isEqualTo(1);
			assertThat(properties.getDenyCache().isEnabled()).isTrue();
			assertThat(properties.getDenyCache().getMaximumClients()).isEqualTo(10_000);
			assertThat(properties.getInMemory().getMaximumClients()).isEqualTo(100_000);
			assertThat(properties.getRedis().getMaxReconnectDelay()).isEqualTo(Duration.ofSeconds(1));
			assertThat(properties.getCircuitBreaker().getFailureRateThreshold()).isEqualTo(50);
			assertThat(properties.getCircuitBreaker().getWindow()).isEqualTo(Duration.ofSeconds(1));
			assertThat(properties.getCircuitBreaker().getMinimumCalls()).isEqualTo(10);
			assertThat(properties.getCircuitBreaker().getOpenDuration()).isEqualTo(Duration.ofSeconds(1));
			assertThat(properties.getFilter().isEnabled()).isTrue();
			assertThat(properties.getPolicies()).isEmpty();
		});
	}

	@Test
	void scalarPropertiesShouldBind() {
		this.contextRunner
			.withPropertyValues("ratelimit.key-prefix=shop", "ratelimit.algorithm=sliding-window",
					"ratelimit.headers=ietf", "ratelimit.timeout=250ms", "ratelimit.failure-mode=local",
					"ratelimit.fallback.instances=3", "ratelimit.deny-cache.enabled=false",
					"ratelimit.deny-cache.maximum-clients=500", "ratelimit.in-memory.maximum-clients=2000",
					"ratelimit.redis.max-reconnect-delay=3s", "ratelimit.filter.enabled=false",
					"ratelimit.filter.order=5",
					"ratelimit.circuit-breaker.failure-rate-threshold=80", "ratelimit.circuit-breaker.window=5s",
					"ratelimit.circuit-breaker.minimum-calls=20", "ratelimit.circuit-breaker.open-duration=2s")
			.run((context) -> {
				RateLimitProperties properties = context.getBean(RateLimitProperties.class);
				assertThat(properties.getBackend()).isEqualTo(RateLimitProperties.Backend.IN_MEMORY);
				assertThat(properties.getKeyPrefix()).isEqualTo("shop");
				assertThat(properties.getAlgorithm()).isEqualTo(Algorithm.SLIDING_WINDOW);
				assertThat(properties.getHeaders()).isEqualTo(HeaderStyle.IETF);
				assertThat(properties.getTimeout()).isEqualTo(Duration.ofMillis(250));
				assertThat(properties.getFailureMode()).isEqualTo(FailureMode.LOCAL);
				assertThat(properties.getFallback().getInstances()).isEqualTo(3);
				assertThat(properties.getDenyCache().isEnabled()).isFalse();
				assertThat(properties.getDenyCache().getMaximumClients()).isEqualTo(500);
				assertThat(properties.getInMemory().getMaximumClients()).isEqualTo(2000);
				assertThat(properties.getRedis().getMaxReconnectDelay()).isEqualTo(Duration.ofSeconds(3));
				assertThat(properties.getFilter().isEnabled()).isFalse();
				assertThat(properties.getFilter().getOrder()).isEqualTo(5);
				assertThat(properties.getCircuitBreaker().getFailureRateThreshold()).isEqualTo(80);
				assertThat(properties.getCircuitBreaker().getWindow()).isEqualTo(Duration.ofSeconds(5));
				assertThat(properties.getCircuitBreaker().getMinimumCalls()).isEqualTo(20);
				assertThat(properties.getCircuitBreaker().getOpenDuration()).isEqualTo(Duration.ofSeconds(2));
			});
	}

	@Test
	void filterOrdersShouldDefaultToEitherSideOfSpringSecurityAndBind() {
		this.contextRunner.run((context) -> {
			RateLimitProperties.FilterProperties filter = context.getBean(RateLimitProperties.class).getFilter();
			assertThat(filter.getOrder()).isEqualTo(-110);
			assertThat(filter.getPrincipalOrder()).isEqualTo(-90);
		});
		this.contextRunner.withPropertyValues("ratelimit.filter.principal-order=7")
			.run((context) -> assertThat(context.getBean(RateLimitProperties.class).getFilter().getPrincipalOrder())
				.isEqualTo(7));
	}

	@Test
	void limitsWrittenAsObjectsShouldBind() {
		this.contextRunner
			.withPropertyValues("ratelimit.policies.hello.limits[0].capacity=10",
					"ratelimit.policies.hello.limits[0].period=1s", "ratelimit.policies.hello.limits[1].capacity=100",
					"ratelimit.policies.hello.limits[1].period=1h")
			.run(limits("hello", Limit.of(10, Duration.ofSeconds(1)), Limit.of(100, Duration.ofHours(1))));
	}

	@Test
	void limitsWrittenCommaSeparatedShouldBindToOneLimitEach() {
		this.contextRunner.withPropertyValues("ratelimit.policies.hello.limits=10/1s,100/1h")
			.run(limits("hello", Limit.of(10, Duration.ofSeconds(1)), Limit.of(100, Duration.ofHours(1))));
	}

	@Test
	void limitsWrittenAsIndexedStringsShouldBind() {
		this.contextRunner
			.withPropertyValues("ratelimit.policies.hello.limits[0]=5/10s",
					"ratelimit.policies.hello.limits[1]=50000/1d")
			.run(limits("hello", Limit.of(5, Duration.ofSeconds(10)), Limit.of(50000, Duration.ofDays(1))));
	}

	@Test
	void limitsMixingStringsAndObjectsShouldBind() {
		this.contextRunner
			.withPropertyValues("ratelimit.policies.hello.limits[0]=5/10s",
					"ratelimit.policies.hello.limits[1].capacity=20", "ratelimit.policies.hello.limits[1].period=250ms")
			.run(limits("hello", Limit.of(5, Duration.ofSeconds(10)), Limit.of(20, Duration.ofMillis(250))));
	}

	@Test
	void limitsOfEveryUnitShouldBind() {
		this.contextRunner.withPropertyValues("ratelimit.policies.hello.limits=1/500ms,2/3s,4/5m,6/7h,8/9d")
			.run(limits("hello", Limit.of(1, Duration.ofMillis(500)), Limit.of(2, Duration.ofSeconds(3)),
					Limit.of(4, Duration.ofMinutes(5)), Limit.of(6, Duration.ofHours(7)),
					Limit.of(8, Duration.ofDays(9))));
	}

	@Test
	void algorithmShouldBindFromItsConfigurationName() {
		this.contextRunner
			.withPropertyValues("ratelimit.policies.a.limits=1/1s", "ratelimit.policies.a.algorithm=fixed-window",
					"ratelimit.policies.b.limits=1/1s", "ratelimit.policies.b.algorithm=SLIDING_LOG")
			.run((context) -> {
				RateLimitRegistry registry = context.getBean(RateLimitRegistry.class);
				assertThat(registry.find("a").orElseThrow().defaultPlan().policy().algorithm()).isEqualTo(Algorithm.FIXED_WINDOW);
				assertThat(registry.find("b").orElseThrow().defaultPlan().policy().algorithm()).isEqualTo(Algorithm.SLIDING_LOG);
			});
	}

	private static ContextConsumer<AssertableApplicationContext> limits(String policy, Limit... expected) {
		return (context) -> assertThat(
				context.getBean(RateLimitRegistry.class).find(policy).orElseThrow().defaultPlan().policy().limits())
			.isEqualTo(List.of(expected));
	}

}
