package io.github.ratelimit.autoconfigure;

import java.time.Clock;

import io.github.ratelimit.core.RateLimiterBackend;
import io.github.ratelimit.core.memory.InMemoryRateLimiterBackend;
import io.github.ratelimit.core.redis.RedisRateLimiterBackend;
import io.github.ratelimit.spring.RateLimitEnforcer;
import io.github.ratelimit.spring.RateLimitRegistry;
import io.github.ratelimit.spring.web.RateLimitHeaders;
import io.github.ratelimit.spring.web.RequestKeyResolvers;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Rate limiting's core: the backend, the policies and their enforcement.
 */
@AutoConfiguration(afterName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
@ConditionalOnBooleanProperty(name = "ratelimit.enabled", matchIfMissing = true)
@EnableConfigurationProperties(RateLimitProperties.class)
public final class RateLimitAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RateLimitRegistry rateLimitRegistry(RateLimitProperties properties, RateLimiterBackend backend,
			BeanFactory beanFactory) {
		return new RateLimitRegistry(backend, new ConfiguredPolicies(properties, backend, beanFactory).definitions(),
				properties.getAlgorithm(), properties.getFailureMode(), RequestKeyResolvers.ip());
	}

	@Bean
	@ConditionalOnMissingBean
	RateLimitEnforcer rateLimitEnforcer() {
		return new RateLimitEnforcer();
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
			case REDIS -> new RedisRateLimiterBackend(redis(connectionFactory), prefix);
		}, "use a non-blank prefix without '{' or '}'");
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

}
