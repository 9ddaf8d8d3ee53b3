package io.github.ratelimit.autoconfigure;

import io.github.ratelimit.core.RateLimiterBackend;
import io.github.ratelimit.core.override.ClientOverrides;
import io.github.ratelimit.spring.IpKeys;
import io.github.ratelimit.spring.PolicyLeases;
import io.github.ratelimit.spring.RateLimitCounters;
import io.github.ratelimit.spring.RateLimitEnforcer;
import io.github.ratelimit.spring.RateLimitRegistry;
import io.github.ratelimit.spring.actuate.RateLimiterHealthIndicator;
import io.github.ratelimit.spring.actuate.RateLimitsEndpoint;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.PropertiesEndpointAccessResolver;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.autoconfigure.endpoint.expose.EndpointExposure;
import org.springframework.boot.actuate.endpoint.EndpointAccessResolver;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.web.context.reactive.ReactiveWebApplicationContext;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * Actuator support, when Actuator is on the classpath: the {@code rateLimiter} health contributor and the
 * {@code ratelimits} endpoint, with a warning at start-up when its writes are open to anonymous HTTP requests.
 */
@AutoConfiguration(after = RateLimitAutoConfiguration.class)
@ConditionalOnBean(RateLimitRegistry.class)
public final class RateLimitActuatorAutoConfiguration {

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(Endpoint.class)
	static class EndpointConfiguration {

		@Bean
		@ConditionalOnMissingBean
		@ConditionalOnAvailableEndpoint
		RateLimitsEndpoint rateLimitsEndpoint(RateLimitRegistry registry, RateLimitCounters counters,
				RateLimitEnforcer enforcer, RateLimitProperties properties, IpKeys ipKeys, ClientOverrides overrides,
				ApplicationContext context, ObjectProvider<PolicyLeases> leases) {
			return new RateLimitsEndpoint(registry, counters, enforcer, properties.getFailureMode(), ipKeys,
					overrides, context instanceof ReactiveWebApplicationContext,
					leases.getIfAvailable(PolicyLeases::new));
		}

		@Bean
		@ConditionalOnAvailableEndpoint(endpoint = RateLimitsEndpoint.class, exposure = EndpointExposure.WEB)
		OpenEndpointWarning rateLimitOpenEndpointWarning(ObjectProvider<EndpointAccessResolver> access,
				Environment environment) {
			return new OpenEndpointWarning(
					access.getIfAvailable(() -> new PropertiesEndpointAccessResolver(environment)));
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(AbstractHealthIndicator.class)
	@ConditionalOnEnabledHealthIndicator("ratelimiter")
	static class HealthConfiguration {

		@Bean
		@ConditionalOnMissingBean(name = "rateLimiterHealthIndicator")
		RateLimiterHealthIndicator rateLimiterHealthIndicator(RateLimiterBackend backend, RateLimitEnforcer enforcer,
				RateLimitProperties properties) {
			return new RateLimiterHealthIndicator(enforcer, backend.name(), properties.getFailureMode());
		}

	}

}
