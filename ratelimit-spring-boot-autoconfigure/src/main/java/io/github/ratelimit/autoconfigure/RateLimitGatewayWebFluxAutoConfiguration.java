package io.github.ratelimit.autoconfigure;

import io.github.ratelimit.spring.RateLimitEnforcer;
import io.github.ratelimit.spring.RateLimitRegistry;
import io.github.ratelimit.spring.web.RateLimitHeaders;
import io.github.ratelimit.spring.web.gateway.webflux.PolicyRateLimiter;
import io.github.ratelimit.spring.web.gateway.webflux.RateLimitGatewayFilterFactory;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.cloud.gateway.support.ConfigurationService;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * Rate limiting of Spring Cloud Gateway's WebFlux server: the {@code RateLimit} route filter, the gateway's
 * {@code RateLimiter} contract over a policy ({@code policyRateLimiter}, not a candidate for injection by type, so
 * that the gateway's own {@code RequestRateLimiter} wiring still finds its {@code RedisRateLimiter}), and the policies
 * routes name, for the start-up check. Its conditions name the gateway's classes as text, so that they hold however
 * the class is read.
 */
@AutoConfiguration(after = RateLimitAutoConfiguration.class,
		afterName = "org.springframework.cloud.gateway.config.GatewayAutoConfiguration")
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
@ConditionalOnClass(name = "org.springframework.cloud.gateway.filter.factory.GatewayFilterFactory")
@ConditionalOnBean(type = { "io.github.ratelimit.spring.RateLimitRegistry",
		"org.springframework.cloud.gateway.support.ConfigurationService" })
public final class RateLimitGatewayWebFluxAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RateLimitGatewayFilterFactory rateLimitGatewayFilterFactory(RateLimitRegistry registry,
			RateLimitEnforcer enforcer, RateLimitHeaders headers) {
		return new RateLimitGatewayFilterFactory(registry, enforcer, headers);
	}

	@Bean(defaultCandidate = false)
	@ConditionalOnMissingBean(name = "policyRateLimiter")
	PolicyRateLimiter policyRateLimiter(RateLimitRegistry registry, RateLimitEnforcer enforcer,
			RateLimitHeaders headers, ConfigurationService configurationService) {
		return new PolicyRateLimiter(registry, enforcer, headers, configurationService);
	}

	@Bean
	GatewayRoutePolicies rateLimitGatewayRoutePolicies(Environment environment,
			RateLimitGatewayFilterFactory filters) {
		return new GatewayRoutePolicies(environment, filters);
	}

}
