package io.github.ratelimit.autoconfigure;

import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.github.ratelimit.core.RateLimiterBackend;
import io.lettuce.core.resource.Delay;
import io.github.ratelimit.core.memory.InMemoryRateLimiterBackend;
import io.github.ratelimit.redis.RedisRateLimiterBackend;
import io.github.ratelimit.core.resilience.CircuitBreaker;
import io.github.ratelimit.core.resilience.DenyCache;
import io.github.ratelimit.spring.RateLimitCounters;
import io.github.ratelimit.spring.RateLimitEnforcer;
import io.github.ratelimit.spring.RateLimitRecorder;
import io.github.ratelimit.spring.RateLimitRegistry;
import io.github.ratelimit.spring.web.RateLimitHeaders;
import io.github.ratelimit.spring.web.RequestKeyResolvers;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.data.redis.autoconfigure.ClientResourcesBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Rate limiting's core: the backend, the policies and their enforcement.
 */
@AutoConfiguration(afterName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
@ConditionalOnBooleanProperty(name = "ratelimit.enabled", matchIfMissing = true)
@EnableConfigurationProperties(RateLimitProperties.class)
public final class RateLimitAutoConfiguration {

	/** How long decisions skip a backend that has just failed before one request probes it again. */
	static final Duration BREAKER_OPEN_INTERVAL = Duration.ofSeconds(1);

	/** The most clients the deny cache remembers. */
	static final int DENY_CACHE_SIZE = 10_000;

	/** Lettuce's reconnect delays: exponential from 10 ms, at most one second. */
	static final Supplier<Delay> RECONNECT_DELAY = () -> Delay.exponential(Duration.ofMillis(10), Duration.ofSeconds(1),
			2, TimeUnit.MILLISECONDS);

	/** The longest the deny cache answers for a client before Redis is asked again. */
	static final Duration DENY_CACHE_MAX_AGE = Duration.ofSeconds(1);

	@Bean
	@ConditionalOnMissingBean
	RateLimitRegistry rateLimitRegistry(RateLimitProperties properties, RateLimiterBackend backend,
			BeanFactory beanFactory) {
		return new RateLimitRegistry(backend, new ConfiguredPolicies(properties, backend, beanFactory).definitions(),
				properties.getAlgorithm(), properties.getFailureMode(), RequestKeyResolvers.ip());
	}

	@Bean
	@ConditionalOnMissingBean
	RateLimitCounters rateLimitCounters() {
		return new RateLimitCounters();
	}

	@Bean
	@ConditionalOnMissingBean
	RateLimitEnforcer rateLimitEnforcer(RateLimitProperties properties, ObjectProvider<RateLimitRecorder> recorders) {
		int instances = properties.getFallback().getInstances();
		if (instances < 1) {
			throw new InvalidRateLimitConfigurationException("ratelimit.fallback.instances",
					"the number of instances must be at least 1, was " + instances,
					"set it to the number of instances that share the limits", null);
		}
		return new RateLimitEnforcer(recorders.orderedStream().toList(), new CircuitBreaker(BREAKER_OPEN_INTERVAL),
				properties.getDenyCache().isEnabled() ? new DenyCache(DENY_CACHE_SIZE, DENY_CACHE_MAX_AGE) : null,
				instances);
	}

	@Bean
	@ConditionalOnMissingBean
	RateLimitHeaders rateLimitHeaders(RateLimitProperties properties) {
		return new RateLimitHeaders(properties.getHeaders());
	}

	@Bean
	@ConditionalOnMissingBean
	RateLimiterBackend rateLimiterBackend(RateLimitProperties properties,
			ObjectProvider<RedisConnectionFactory> connectionFactory) {
		String prefix = properties.getKeyPrefix();
		return ConfiguredPolicies.check("ratelimit.key-prefix", () -> switch (properties.getBackend()) {
			case IN_MEMORY -> new InMemoryRateLimiterBackend(Clock.systemUTC(), prefix);
			case REDIS -> new RedisRateLimiterBackend(redis(connectionFactory), prefix, timeout(properties));
		}, "use a non-blank prefix without '{' or '}'");
	}

	private static Duration timeout(RateLimitProperties properties) {
		Duration timeout = properties.getTimeout();
		if (timeout.isNegative() || timeout.isZero()) {
			throw new InvalidRateLimitConfigurationException("ratelimit.timeout",
					"the timeout must be positive, was " + timeout, "set a timeout such as 100ms", null);
		}
		return timeout;
	}

	private static RedisConnectionFactory redis(ObjectProvider<RedisConnectionFactory> connectionFactory) {
		RedisConnectionFactory redis = connectionFactory.getIfAvailable();
		if (redis == null) {
			throw new InvalidRateLimitConfigurationException("ratelimit.backend",
					"the redis backend needs a RedisConnectionFactory and the application has none",
					"add spring-boot-starter-data-redis (and spring.data.redis.* settings), or set "
							+ "ratelimit.backend=in-memory for a single instance",
					null);
		}
		return redis;
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ ClientResourcesBuilderCustomizer.class, Delay.class })
	static class LettuceReconnectConfiguration {

		/**
		 * Lettuce backs off up to 30 s between reconnect attempts, so after a long Redis outage exact limiting could
		 * wait that long to resume; cap the wait at one second. Ordered first: your own customizer can change it.
		 */
		@Bean
		@Order(Ordered.HIGHEST_PRECEDENCE)
		ClientResourcesBuilderCustomizer rateLimitReconnectDelay() {
			return (builder) -> builder.reconnectDelay(RECONNECT_DELAY.get());
		}

	}

}
