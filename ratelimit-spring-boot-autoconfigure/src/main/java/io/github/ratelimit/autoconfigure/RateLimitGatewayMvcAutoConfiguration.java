package io.github.ratelimit.autoconfigure;

import io.github.ratelimit.spring.RateLimitEnforcer;
import io.github.ratelimit.spring.RateLimitRegistry;
import io.github.ratelimit.spring.web.RateLimitHeaders;
import io.github.ratelimit.spring.web.gateway.webmvc.RateLimitFilterFunctions;
import io.github.ratelimit.spring.web.gateway.webmvc.RouteEnforcement;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * Rate limiting of the routes of Spring Cloud Gateway's WebMVC server: the {@code RateLimit} filter of YAML routes
 * (known to the gateway even with rate limiting switched off, when it lets every request through), the enforcement it
 * and the Java DSL's {@code rateLimit(..)} apply policies with, and the policies routes name, for the start-up checks.
 */
@AutoConfiguration(after = RateLimitAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(name = { "org.springframework.cloud.gateway.server.mvc.filter.FilterSupplier",
		"org.springframework.web.servlet.function.HandlerFilterFunction" })
public final class RateLimitGatewayMvcAutoConfiguration {

	/**
	 * The gateway's types appear only in nested classes, which are not read when the gateway is absent, even where
	 * this class is given as a class rather than by name (an {@code ApplicationContextRunner}).
	 */
	@Configuration(proxyBeanMethods = false)
	static class FilterConfiguration {

		@Bean
		@ConditionalOnMissingBean
		RateLimitFilterFunctions.FilterSupplier rateLimitFilterFunctionsSupplier() {
			return new RateLimitFilterFunctions.FilterSupplier();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnBean(RateLimitRegistry.class)
	static class EnforcementConfiguration {

		@Bean
		@ConditionalOnMissingBean
		RouteEnforcement rateLimitRouteEnforcement(RateLimitRegistry registry, RateLimitEnforcer enforcer,
				RateLimitHeaders headers) {
			return new RouteEnforcement(registry, enforcer, headers);
		}

		@Bean
		GatewayMvcRoutePolicies rateLimitGatewayMvcRoutePolicies(Environment environment) {
			return new GatewayMvcRoutePolicies(environment);
		}

	}

}
