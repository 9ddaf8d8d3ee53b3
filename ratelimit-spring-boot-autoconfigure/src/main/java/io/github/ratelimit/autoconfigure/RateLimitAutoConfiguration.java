package io.github.ratelimit.autoconfigure;

import java.time.Clock;
import java.time.Duration;
import java.util.stream.Collectors;

import io.github.ratelimit.core.RateLimiterBackend;
import io.github.ratelimit.core.memory.InMemoryRateLimiterBackend;
import io.github.ratelimit.core.override.ClientOverrides;
import io.github.ratelimit.core.override.InMemoryClientOverrides;
import io.github.ratelimit.core.resilience.CircuitBreaker;
import io.github.ratelimit.core.resilience.DenyCache;
import io.github.ratelimit.spring.IpKeys;
import io.github.ratelimit.spring.PolicyLeases;
import io.github.ratelimit.spring.RateLimitCounters;
import io.github.ratelimit.spring.RateLimitEnforcer;
import io.github.ratelimit.spring.RateLimitRecorder;
import io.github.ratelimit.spring.RateLimitRegistry;
import io.github.ratelimit.spring.RequestKeyResolvers;
import io.github.ratelimit.spring.annotation.RateLimitedPolicies;
import io.github.ratelimit.spring.observation.RateLimitObservationConvention;
import io.github.ratelimit.spring.web.RateLimitHeaders;
import io.micrometer.observation.ObservationRegistry;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * Rate limiting's core: the backend, the policies and their enforcement. The Redis backend comes from
 * {@link RateLimitRedisAutoConfiguration}; without it, {@code ratelimit.backend=in-memory} is required.
 */
@AutoConfiguration(after = RateLimitRedisAutoConfiguration.class,
		afterName = "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration")
@ConditionalOnBooleanProperty(name = "ratelimit.enabled", matchIfMissing = true)
@EnableConfigurationProperties(RateLimitProperties.class)
public final class RateLimitAutoConfiguration {


	@Bean
	@ConditionalOnMissingBean
	RateLimitRegistry rateLimitRegistry(RateLimitProperties properties, RateLimiterBackend backend,
			BeanFactory beanFactory, IpKeys ipKeys, PolicyLeases leases) {
		return new RateLimitRegistry(backend,
				new ConfiguredPolicies(properties, backend, beanFactory, ipKeys, leases).definitions(),
				properties.getAlgorithm(), properties.getFailureMode(), RequestKeyResolvers.ip(ipKeys));
	}

	/**
	 * The leased limiters of the configured policies, closed (their unused permits returned where the algorithm
	 * takes them back) when the application stops, before the backend and its connections.
	 */
	@Bean
	@ConditionalOnMissingBean
	PolicyLeases rateLimitPolicyLeases(RateLimiterBackend backend) {
		return new PolicyLeases();
	}

	@Bean
	@ConditionalOnMissingBean
	IpKeys rateLimitIpKeys(RateLimitProperties properties) {
		RateLimitProperties.IpProperties ip = properties.getIp();
		ConfiguredPolicies.check("ratelimit.ip.ipv4-prefix-length",
				() -> new IpKeys(ip.getIpv4PrefixLength(), IpKeys.DEFAULT_IPV6_PREFIX_LENGTH),
				"set it between 1 and 32 (32 keys every address on its own)");
		return ConfiguredPolicies.check("ratelimit.ip.ipv6-prefix-length",
				() -> new IpKeys(ip.getIpv4PrefixLength(), ip.getIpv6PrefixLength()),
				"set it between 1 and 128 (64 keys a host's usual /64, 128 every address on its own)");
	}

	@Bean
	@ConditionalOnMissingBean
	RateLimitStartupLogger rateLimitStartupLogger(RateLimitRegistry registry, RateLimitProperties properties,
			ObjectProvider<RoutePolicies> routes) {
		return new RateLimitStartupLogger(registry, properties.getFailureMode(), () -> routes.orderedStream()
			.flatMap((route) -> route.names().stream())
			.collect(Collectors.toSet()));
	}

	@Bean
	@ConditionalOnMissingBean
	RateLimitCounters rateLimitCounters() {
		return new RateLimitCounters();
	}

	@Bean
	@ConditionalOnMissingBean
	RateLimitEnforcer rateLimitEnforcer(RateLimitProperties properties, RateLimiterBackend backend,
			ObjectProvider<RateLimitRecorder> recorders, ClientOverrides overrides,
			ObjectProvider<ObservationRegistry> observationRegistry,
			ObjectProvider<RateLimitObservationConvention> observationConvention) {
		int instances = fallbackInstances(properties);
		long denyCacheClients = maximumClients("ratelimit.deny-cache.maximum-clients",
				properties.getDenyCache().getMaximumClients());
		RateLimitEnforcer enforcer = new RateLimitEnforcer(recorders.orderedStream().toList(), backend,
				circuitBreaker(properties),
				properties.getDenyCache().isEnabled() ? new DenyCache(denyCacheClients, DenyCache.DEFAULT_MAX_AGE) : null,
				instances, inMemoryBackend(properties, "fallback"));
		enforcer.applyOverrides(overrides, maximumOverrides(properties));
		if (properties.getObservations().isEnabled()) {
			enforcer.observeWith(observationRegistry.getIfUnique(() -> ObservationRegistry.NOOP),
					observationConvention.getIfUnique());
		}
		return enforcer;
	}

	/**
	 * This instance's overrides, for the in-memory backend (the Redis backend keeps them in Redis, see
	 * {@link RateLimitRedisAutoConfiguration}).
	 */
	@Bean
	@ConditionalOnMissingBean
	ClientOverrides rateLimitClientOverrides(RateLimitProperties properties) {
		return new InMemoryClientOverrides(Clock.systemUTC(), maximumOverrides(properties));
	}

	/**
	 * Checks the most overrides kept.
	 * @param properties the properties
	 * @return the maximum
	 */
	static int maximumOverrides(RateLimitProperties properties) {
		int maximum = properties.getOverrides().getMaximum();
		if (maximum < 1) {
			throw new InvalidRateLimitConfigurationException("ratelimit.overrides.maximum",
					"the most overrides kept must be at least 1, was " + maximum, "set a bound such as 10000", null);
		}
		return maximum;
	}

	@Bean
	@ConditionalOnMissingBean
	RateLimitHeaders rateLimitHeaders(RateLimitProperties properties) {
		return new RateLimitHeaders(properties.getHeaders().ietf(), properties.getHeaders().legacy());
	}

	@Bean
	@ConditionalOnProperty(name = "server.forward-headers-strategy")
	ForwardedHeadersWarning rateLimitForwardedHeadersWarning(RateLimitRegistry registry, Environment environment) {
		return new ForwardedHeadersWarning(registry,
				environment.getRequiredProperty("server.forward-headers-strategy"));
	}

	/**
	 * The in-memory backend, or (when the Redis backend was asked for but could not be built) a start-up failure that
	 * says what is missing.
	 */
	@Bean
	@ConditionalOnMissingBean
	RateLimiterBackend rateLimiterBackend(RateLimitProperties properties) {
		if (properties.getBackend() == RateLimitProperties.Backend.REDIS) {
			throw new InvalidRateLimitConfigurationException("ratelimit.backend",
					"the redis backend needs Spring Data Redis, ratelimit-redis and a RedisConnectionFactory, and the "
							+ "application lacks one of them",
					"add spring-boot-starter-data-redis (and spring.data.redis.* settings), or set "
							+ "ratelimit.backend=in-memory for a single instance",
					null);
		}
		return ConfiguredPolicies.check("ratelimit.key-prefix",
				() -> inMemoryBackend(properties, properties.getKeyPrefix()),
				"use a non-blank prefix without '{' or '}'");
	}

	private static InMemoryRateLimiterBackend inMemoryBackend(RateLimitProperties properties, String keyPrefix) {
		return new InMemoryRateLimiterBackend(Clock.systemUTC(), keyPrefix,
				maximumClients("ratelimit.in-memory.maximum-clients", properties.getInMemory().getMaximumClients()));
	}

	/**
	 * Checks a bound on the clients kept in memory.
	 * @param property the property's name
	 * @param maximum its value
	 * @return the maximum
	 */
	static long maximumClients(String property, long maximum) {
		if (maximum < 1) {
			throw new InvalidRateLimitConfigurationException(property,
					"the most clients kept in memory must be at least 1, was " + maximum,
					"set a bound such as 100000: beyond it the least used clients are evicted, never left unlimited",
					null);
		}
		return maximum;
	}

	/**
	 * Checks the number of instances the {@code local} failure mode divides limits by.
	 * @param properties the properties
	 * @return the number of instances
	 */
	static int fallbackInstances(RateLimitProperties properties) {
		int instances = properties.getFallback().getInstances();
		if (instances < 1) {
			throw new InvalidRateLimitConfigurationException("ratelimit.fallback.instances",
					"the number of instances must be at least 1, was " + instances,
					"set it to the number of instances that share the limits", null);
		}
		return instances;
	}

	/**
	 * Checks the circuit breaker's settings and builds it.
	 * @param properties the properties
	 * @return the breaker
	 */
	static CircuitBreaker circuitBreaker(RateLimitProperties properties) {
		RateLimitProperties.CircuitBreakerProperties settings = properties.getCircuitBreaker();
		int threshold = settings.getFailureRateThreshold();
		if (threshold < 1 || threshold > 100) {
			throw new InvalidRateLimitConfigurationException("ratelimit.circuit-breaker.failure-rate-threshold",
					"the failure rate threshold is a percentage from 1 to 100, was " + threshold,
					"set a percentage such as 50", null);
		}
		positive("ratelimit.circuit-breaker.window", settings.getWindow(), "set a window such as 1s");
		if (settings.getMinimumCalls() < 1) {
			throw new InvalidRateLimitConfigurationException("ratelimit.circuit-breaker.minimum-calls",
					"the minimum number of calls must be at least 1, was " + settings.getMinimumCalls(),
					"set a number such as 10", null);
		}
		positive("ratelimit.circuit-breaker.open-duration", settings.getOpenDuration(),
				"set a duration such as 1s");
		return new CircuitBreaker(threshold, settings.getWindow(), settings.getMinimumCalls(),
				settings.getOpenDuration());
	}

	private static void positive(String property, Duration duration, String action) {
		if (duration.isNegative() || duration.isZero()) {
			throw new InvalidRateLimitConfigurationException(property, "the duration must be positive, was " + duration,
					action, null);
		}
	}

	/**
	 * Checks the decision timeout.
	 * @param properties the properties
	 * @return the timeout
	 */
	static Duration timeout(RateLimitProperties properties) {
		Duration timeout = properties.getTimeout();
		if (timeout.isNegative() || timeout.isZero()) {
			throw new InvalidRateLimitConfigurationException("ratelimit.timeout",
					"the timeout must be positive, was " + timeout, "set a timeout such as 100ms", null);
		}
		return timeout;
	}

	/**
	 * Checks the order of the filter of policies keyed after authentication, on either stack.
	 * @param filter the filter settings
	 * @return the order
	 */
	static int principalOrder(RateLimitProperties.FilterProperties filter) {
		if (filter.getPrincipalOrder() <= filter.getOrder()) {
			throw new InvalidRateLimitConfigurationException("ratelimit.filter.principal-order",
					"the filter of policies keyed by the authenticated user (order " + filter.getPrincipalOrder()
							+ ") must run after the one of policies keyed by the request (ratelimit.filter.order "
							+ filter.getOrder() + ")",
					"set ratelimit.filter.principal-order above ratelimit.filter.order, with Spring Security's "
							+ "filter chain (spring.security.filter.order, -100 by default) between them",
					null);
		}
		return filter.getPrincipalOrder();
	}

	/**
	 * Live configuration with Spring Cloud's configuration refresh: a change of {@code ratelimit.policies.*} applies
	 * without a restart. Loaded only when Spring Cloud Context is present.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "org.springframework.cloud.context.environment.EnvironmentChangeEvent")
	static class RefreshConfiguration {

		@Bean
		@ConditionalOnMissingBean
		RateLimitRefresher rateLimitRefresher(Environment environment, RateLimitRegistry registry,
				RateLimiterBackend backend, BeanFactory beanFactory, IpKeys ipKeys, RateLimitEnforcer enforcer,
				RateLimitStartupLogger startupLogger, ObjectProvider<RateLimitedPolicies> annotated,
				ObjectProvider<RoutePolicies> routes, PolicyLeases leases) {
			return new RateLimitRefresher(environment, registry, backend, beanFactory, ipKeys, enforcer, startupLogger,
					annotated, routes, leases);
		}

		@Bean
		RateLimitRefreshListener rateLimitRefreshListener(RateLimitRefresher refresher) {
			return new RateLimitRefreshListener(refresher);
		}

	}

}
