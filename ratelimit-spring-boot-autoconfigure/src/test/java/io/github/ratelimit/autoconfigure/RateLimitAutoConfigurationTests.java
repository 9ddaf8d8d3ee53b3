package io.github.ratelimit.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.Set;

import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.core.Limit;
import io.github.ratelimit.core.Policy;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.core.RateLimiterBackend;
import io.github.ratelimit.core.memory.InMemoryRateLimiterBackend;
import io.github.ratelimit.redis.RedisRateLimiterBackend;
import io.github.ratelimit.spring.FailureMode;
import io.github.ratelimit.spring.PolicyDefinition;
import io.github.ratelimit.spring.RateLimitEnforcer;
import io.github.ratelimit.spring.RateLimitRegistry;
import io.github.ratelimit.spring.web.RateLimitHeaders;
import io.github.ratelimit.spring.RequestKeyResolvers;
import io.github.ratelimit.test.TestRedisProperties;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link RateLimitAutoConfiguration}.
 */
class RateLimitAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RateLimitRedisAutoConfiguration.class, RateLimitAutoConfiguration.class));

	private final ApplicationContextRunner redisContextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RateLimitRedisAutoConfiguration.class, RateLimitAutoConfiguration.class))
		.withPropertyValues(TestRedisProperties.values());

	@Test
	void autoConfigurationWhenDisabledShouldBackOff() {
		this.redisContextRunner.withPropertyValues("ratelimit.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(RateLimitRegistry.class)
				.doesNotHaveBean(RateLimiterBackend.class)
				.doesNotHaveBean(RateLimitEnforcer.class)
				.doesNotHaveBean(RateLimitHeaders.class)
				.doesNotHaveBean(RateLimitProperties.class));
	}

	@Test
	void backendWhenInMemoryShouldNotNeedRedis() {
		this.contextRunner.withPropertyValues("ratelimit.backend=in-memory")
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(InMemoryRateLimiterBackend.class)
				.hasSingleBean(RateLimitRegistry.class)
				.hasSingleBean(RateLimitEnforcer.class)
				.hasSingleBean(RateLimitHeaders.class));
	}

	@Test
	void inMemoryBackendShouldKeepAtMostTheConfiguredClients() {
		this.contextRunner.withPropertyValues("ratelimit.backend=in-memory", "ratelimit.in-memory.maximum-clients=100")
			.run((context) -> {
				InMemoryRateLimiterBackend backend = context.getBean(InMemoryRateLimiterBackend.class);
				RateLimiter limiter = backend.create(Policy.of("flooded", Algorithm.TOKEN_BUCKET, "5/1m"));
				for (int i = 0; i < 10_000; i++) {
					limiter.tryAcquire("rotated-" + i);
				}
				assertThat(backend.size()).isLessThanOrEqualTo(100);
			});
	}

	@Test
	void backendWhenRedisWithoutConnectionFactoryShouldFailNamingTheBackendProperty() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.isInstanceOf(InvalidRateLimitConfigurationException.class)
				.hasMessageContaining("ratelimit.backend")
				.extracting("property")
				.isEqualTo("ratelimit.backend");
		});
	}

	@Test
	void backendShouldBeRedisByDefault() {
		this.redisContextRunner.run((context) -> {
			assertThat(context).hasSingleBean(RedisRateLimiterBackend.class);
			assertThat(context.getBean(RateLimiterBackend.class).name()).isEqualTo("redis");
		});
	}

	@Test
	void backendWhenRedisShouldDecideInTheApplicationsRedisUnderTheKeyPrefix() {
		String prefix = TestRedisProperties.uniquePrefix();
		this.redisContextRunner
			.withPropertyValues("ratelimit.key-prefix=" + prefix, "ratelimit.policies.stored.limits=1/1h")
			.run((context) -> {
				PolicyDefinition stored = context.getBean(RateLimitRegistry.class).find("stored").orElseThrow();
				assertThat(stored.defaultPlan().limiter().tryAcquire("client").allowed()).isTrue();
				assertThat(stored.defaultPlan().limiter().tryAcquire("client").allowed()).isFalse();
				StringRedisTemplate redis = new StringRedisTemplate(context.getBean(RedisConnectionFactory.class));
				assertThat(redis.keys(prefix + ":stored:*")).isNotEmpty();
			});
	}

	@Test
	void backendWhenWrittenAsEnumConstantShouldBeHonoured() {
		this.contextRunner.withPropertyValues("ratelimit.backend=IN_MEMORY")
			.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(InMemoryRateLimiterBackend.class));
	}

	@Test
	void keyPrefixWhenInvalidWithRedisBackendShouldFailNamingTheProperty() {
		this.redisContextRunner.withPropertyValues("ratelimit.key-prefix=rate{limit}")
			.run((context) -> assertThat(InvalidConfiguration.of(context).getProperty())
				.isEqualTo("ratelimit.key-prefix"));
	}

	@Test
	void keyPrefixWhenInvalidWithInMemoryBackendShouldFailNamingTheProperty() {
		this.contextRunner.withPropertyValues("ratelimit.backend=in-memory", "ratelimit.key-prefix=rate{limit}")
			.run((context) -> assertThat(InvalidConfiguration.of(context).getProperty())
				.isEqualTo("ratelimit.key-prefix"));
	}

	@Test
	void policiesShouldBeDefinedFromConfiguration() {
		this.contextRunner
			.withPropertyValues("ratelimit.backend=in-memory", "ratelimit.algorithm=gcra",
					"ratelimit.failure-mode=closed", "ratelimit.policies.hello.limits=5/10s,100/1h",
					"ratelimit.policies.hello.paths=/api/hello", "ratelimit.policies.orders.limits=10/1m",
					"ratelimit.policies.orders.algorithm=sliding-log", "ratelimit.policies.orders.key=header:X-Api-Key",
					"ratelimit.policies.orders.paths=/api/orders/**",
					"ratelimit.policies.orders.exclude-paths=/api/orders/health",
					"ratelimit.policies.orders.methods=post,PUT", "ratelimit.policies.orders.cost=2",
					"ratelimit.policies.orders.failure-mode=open", "ratelimit.policies.orders.shadow=true")
			.run((context) -> {
				RateLimitRegistry registry = context.getBean(RateLimitRegistry.class);
				assertThat(registry.policies()).extracting(PolicyDefinition::name).containsExactly("hello", "orders");
				PolicyDefinition hello = registry.find("hello").orElseThrow();
				assertThat(hello.defaultPlan().policy()).isEqualTo(new Policy("hello", Algorithm.GCRA,
						List.of(Limit.of(5, Duration.ofSeconds(10)), Limit.of(100, Duration.ofHours(1)))));
				assertThat(hello.keyStrategy()).isEqualTo("ip");
				assertThat(hello.methods()).isEmpty();
				assertThat(hello.defaultPlan().cost()).isEqualTo(1);
				assertThat(hello.failureMode()).isEqualTo(FailureMode.CLOSED);
				assertThat(hello.shadow()).isFalse();
				PolicyDefinition orders = registry.find("orders").orElseThrow();
				assertThat(orders.defaultPlan().policy().algorithm()).isEqualTo(Algorithm.SLIDING_LOG);
				assertThat(orders.keyStrategy()).isEqualTo("header:X-Api-Key");
				assertThat(orders.paths()).extracting(Object::toString).containsExactly("/api/orders/**");
				assertThat(orders.excludePaths()).extracting(Object::toString).containsExactly("/api/orders/health");
				assertThat(orders.methods()).isEqualTo(Set.of("POST", "PUT"));
				assertThat(orders.defaultPlan().cost()).isEqualTo(2);
				assertThat(orders.failureMode()).isEqualTo(FailureMode.OPEN);
				assertThat(orders.shadow()).isTrue();
				assertThat(orders.defaultPlan().limiter().policy()).isEqualTo(orders.defaultPlan().policy());
				assertThat(registry.filterPolicies()).containsExactly(hello, orders);
			});
	}

	@Test
	void policyWithoutPathsShouldNotBeAppliedByTheFilter() {
		this.contextRunner
			.withPropertyValues("ratelimit.backend=in-memory", "ratelimit.policies.annotated.limits=10/1m")
			.run((context) -> {
				RateLimitRegistry registry = context.getBean(RateLimitRegistry.class);
				assertThat(registry.find("annotated")).isPresent();
				assertThat(registry.filterPolicies()).isEmpty();
			});
	}

	@Test
	void headersShouldFollowTheHeadersProperty() {
		this.contextRunner.withPropertyValues("ratelimit.backend=in-memory", "ratelimit.headers=legacy")
			.run((context) -> assertThat(context.getBean(RateLimitHeaders.class)).extracting("legacy", "ietf")
				.containsExactly(true, false));
	}

	@Test
	void userDefinedBackendShouldReplaceOurs() {
		this.contextRunner.withUserConfiguration(UserBackendConfiguration.class).run((context) -> {
			assertThat(context).hasSingleBean(RateLimiterBackend.class);
			assertThat(context.getBean(RateLimiterBackend.class))
				.isSameAs(context.getBean(UserBackendConfiguration.class).backend);
			assertThat(context.getBean(RateLimitRegistry.class).backend())
				.isSameAs(context.getBean(UserBackendConfiguration.class).backend);
		});
	}

	@Test
	void userDefinedRegistryShouldReplaceOurs() {
		this.contextRunner.withPropertyValues("ratelimit.backend=in-memory")
			.withUserConfiguration(UserRegistryConfiguration.class)
			.run((context) -> assertThat(context).getBean(RateLimitRegistry.class)
				.isSameAs(context.getBean(UserRegistryConfiguration.class).registry));
	}

	@Test
	void userDefinedEnforcerShouldReplaceOurs() {
		this.contextRunner.withPropertyValues("ratelimit.backend=in-memory")
			.withBean("userEnforcer", RateLimitEnforcer.class,
					() -> new RateLimitEnforcer(new InMemoryRateLimiterBackend(), List.of()))
			.run((context) -> assertThat(context).hasSingleBean(RateLimitEnforcer.class)
				.hasBean("userEnforcer"));
	}

	@Test
	void userDefinedHeadersShouldReplaceOurs() {
		this.contextRunner.withPropertyValues("ratelimit.backend=in-memory")
			.withBean("userHeaders", RateLimitHeaders.class, () -> new RateLimitHeaders(false, false))
			.run((context) -> assertThat(context).hasSingleBean(RateLimitHeaders.class).hasBean("userHeaders"));
	}

	@Configuration(proxyBeanMethods = false)
	static class UserBackendConfiguration {

		final RateLimiterBackend backend = new InMemoryRateLimiterBackend();

		@Bean
		RateLimiterBackend userBackend() {
			return this.backend;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UserRegistryConfiguration {

		final RateLimitRegistry registry = new RateLimitRegistry(new InMemoryRateLimiterBackend(), List.of(),
				Algorithm.TOKEN_BUCKET, FailureMode.OPEN, RequestKeyResolvers.ip());

		@Bean
		RateLimitRegistry userRegistry() {
			return this.registry;
		}

	}

}
