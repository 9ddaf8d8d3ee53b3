package io.github.ratelimit.autoconfigure;

import io.github.ratelimit.spring.RateLimitEnforcer;
import io.github.ratelimit.spring.RateLimitRegistry;
import io.github.ratelimit.spring.ReactiveCurrentRequest;
import io.github.ratelimit.spring.web.RateLimitExceptionHandler;
import io.github.ratelimit.spring.web.RateLimitHeaders;
import io.github.ratelimit.spring.web.reactive.RateLimitWebFilter;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.reactive.DispatcherHandler;
import org.springframework.web.server.WebExceptionHandler;
import org.springframework.web.server.WebFilter;

/**
 * Rate limiting of WebFlux requests: the web filters for policies with paths (one before Spring Security's
 * {@code WebFilterChainProxy}, one after it), the request reactive {@code @RateLimited} methods are subscribed in, and
 * the 429 rendering of {@code @RateLimited} refusals, in controllers and elsewhere.
 */
@AutoConfiguration(after = RateLimitAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
@ConditionalOnClass({ WebFilter.class, reactor.core.publisher.Mono.class })
@ConditionalOnBean(RateLimitRegistry.class)
public final class RateLimitReactiveAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	ReactiveCurrentRequest rateLimitReactiveCurrentRequest() {
		return RateLimitWebFilter.currentRequest();
	}

	@Bean
	@ConditionalOnMissingBean(name = "rateLimitWebExceptionHandler")
	WebExceptionHandler rateLimitWebExceptionHandler(RateLimitHeaders headers) {
		return RateLimitWebFilter.exceptionHandler(headers);
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnBooleanProperty(name = "ratelimit.filter.enabled", matchIfMissing = true)
	static class WebFilterConfiguration {

		@Bean
		@ConditionalOnMissingBean(name = "rateLimitWebFilter")
		RateLimitWebFilter rateLimitWebFilter(RateLimitProperties properties, RateLimitRegistry registry,
				RateLimitEnforcer enforcer, RateLimitHeaders headers) {
			return RateLimitWebFilter.beforeAuthentication(registry, properties.getFilter().getOrder(), enforcer,
					headers);
		}

		@Bean
		@ConditionalOnMissingBean(name = "rateLimitPrincipalWebFilter")
		RateLimitWebFilter rateLimitPrincipalWebFilter(RateLimitProperties properties, RateLimitRegistry registry,
				RateLimitEnforcer enforcer, RateLimitHeaders headers) {
			return RateLimitWebFilter.afterAuthentication(registry,
					RateLimitAutoConfiguration.principalOrder(properties.getFilter()), enforcer, headers);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(DispatcherHandler.class)
	static class ControllerConfiguration {

		@Bean
		@ConditionalOnMissingBean
		RateLimitExceptionHandler rateLimitExceptionHandler(RateLimitHeaders headers) {
			return new RateLimitExceptionHandler(headers);
		}

	}

}
