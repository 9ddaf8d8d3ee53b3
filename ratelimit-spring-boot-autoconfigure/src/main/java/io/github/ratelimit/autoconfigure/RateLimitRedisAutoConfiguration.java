package io.github.ratelimit.autoconfigure;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.github.ratelimit.core.RateLimiterBackend;
import io.github.ratelimit.core.override.ClientOverrides;
import io.github.ratelimit.redis.RedisClientOverrides;
import io.github.ratelimit.redis.RedisRateLimiterBackend;
import io.lettuce.core.resource.Delay;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.data.redis.autoconfigure.ClientResourcesBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The Redis backend, on the application's {@link RedisConnectionFactory}: only with Spring Data Redis and
 * {@code ratelimit-redis} on the classpath.
 */
@AutoConfiguration(afterName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
@ConditionalOnBooleanProperty(name = "ratelimit.enabled", matchIfMissing = true)
@ConditionalOnClass({ RedisRateLimiterBackend.class, RedisConnectionFactory.class })
@EnableConfigurationProperties(RateLimitProperties.class)
public final class RateLimitRedisAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(RateLimiterBackend.class)
	@ConditionalOnBean(RedisConnectionFactory.class)
	@ConditionalOnProperty(name = "ratelimit.backend", havingValue = "redis", matchIfMissing = true)
	RedisRateLimiterBackend rateLimiterBackend(RateLimitProperties properties, RedisConnectionFactory connectionFactory) {
		Duration timeout = RateLimitAutoConfiguration.timeout(properties);
		RedisRateLimiterBackend backend = ConfiguredPolicies.check("ratelimit.key-prefix",
				() -> new RedisRateLimiterBackend(connectionFactory, properties.getKeyPrefix(), timeout),
				"use a non-blank prefix without '{' or '}'");
		backend.start();
		return backend;
	}

	/**
	 * Operators' overrides, kept in Redis so that every instance applies them and they outlive restarts. The first
	 * load waits at most the decision timeout (or a second, if longer).
	 */
	@Bean
	@ConditionalOnMissingBean(ClientOverrides.class)
	@ConditionalOnBean(RedisRateLimiterBackend.class)
	RedisClientOverrides rateLimitClientOverrides(RateLimitProperties properties,
			RedisConnectionFactory connectionFactory) {
		RedisClientOverrides overrides = new RedisClientOverrides(connectionFactory, properties.getKeyPrefix(),
				refreshInterval(properties), RateLimitAutoConfiguration.maximumOverrides(properties));
		Duration timeout = RateLimitAutoConfiguration.timeout(properties);
		overrides.start((timeout.compareTo(Duration.ofSeconds(1)) > 0) ? timeout : Duration.ofSeconds(1));
		return overrides;
	}

	private static Duration refreshInterval(RateLimitProperties properties) {
		Duration interval = properties.getOverrides().getRefreshInterval();
		if (interval.isNegative() || interval.isZero()) {
			throw new InvalidRateLimitConfigurationException("ratelimit.overrides.refresh-interval",
					"the refresh interval of overrides must be positive, was " + interval,
					"set an interval such as 500ms: the longest a change on one instance takes to apply on the others",
					null);
		}
		return interval;
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ ClientResourcesBuilderCustomizer.class, Delay.class })
	static class LettuceReconnectConfiguration {

		private static final Duration FIRST_RECONNECT_DELAY = Duration.ofMillis(10);

		/**
		 * Lettuce backs off up to 30 s between reconnect attempts, so after a long Redis outage exact limiting could
		 * wait that long to resume; cap the wait at {@code ratelimit.redis.max-reconnect-delay} (one second), unless
		 * it is 0. Ordered first: your own customizer can change it.
		 */
		@Bean
		@Order(Ordered.HIGHEST_PRECEDENCE)
		ClientResourcesBuilderCustomizer rateLimitReconnectDelay(RateLimitProperties properties) {
			Duration max = maxReconnectDelay(properties);
			return (builder) -> {
				if (!max.isZero()) {
					builder.reconnectDelay(reconnectDelay(max));
				}
			};
		}

		/**
		 * Lettuce's reconnect delays: exponential from 10 ms, at most the maximum (constant when that is shorter).
		 * @param max the longest delay
		 * @return the delay
		 */
		static Delay reconnectDelay(Duration max) {
			if (max.compareTo(FIRST_RECONNECT_DELAY) <= 0) {
				return Delay.constant(max);
			}
			return Delay.exponential(FIRST_RECONNECT_DELAY, max, 2, TimeUnit.MILLISECONDS);
		}

		private static Duration maxReconnectDelay(RateLimitProperties properties) {
			Duration max = properties.getRedis().getMaxReconnectDelay();
			if (max.isNegative()) {
				throw new InvalidRateLimitConfigurationException("ratelimit.redis.max-reconnect-delay",
						"the longest reconnect delay must not be negative, was " + max,
						"set a delay such as 1s, or 0 to leave Lettuce's own reconnect backoff alone", null);
			}
			return max;
		}

	}

}
