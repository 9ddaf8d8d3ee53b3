package io.github.ratelimit.autoconfigure;

import io.github.ratelimit.spring.CurrentRequest;
import io.github.ratelimit.spring.RateLimitEnforcer;
import io.github.ratelimit.spring.RateLimitRegistry;
import io.github.ratelimit.spring.web.RateLimitHeaders;
import io.github.ratelimit.spring.web.RateLimitExceptionHandler;
import io.github.ratelimit.spring.web.servlet.RateLimitFilter;
import jakarta.servlet.DispatcherType;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.servlet.DispatcherServlet;

/**
 * Rate limiting of servlet requests: the filters for policies with paths (one before Spring Security's filter chain,
 * one after it), the request {@code @RateLimited} calls are made in, and the 429 rendering of their refusals inside
 * Spring MVC.
 */
@AutoConfiguration(after = RateLimitAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass({ DispatcherType.class, FilterRegistrationBean.class })
@ConditionalOnBean(RateLimitRegistry.class)
public final class RateLimitServletAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	CurrentRequest rateLimitCurrentRequest() {
		return RateLimitFilter.currentRequest();
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnBooleanProperty(name = "ratelimit.filter.enabled", matchIfMissing = true)
	static class FilterConfiguration {

		@Bean
		@ConditionalOnMissingBean(name = "rateLimitFilter")
		FilterRegistrationBean<RateLimitFilter> rateLimitFilter(RateLimitProperties properties,
				RateLimitRegistry registry, RateLimitEnforcer enforcer, RateLimitHeaders headers) {
			return registration("rateLimitFilter", properties.getFilter().getOrder(),
					RateLimitFilter.beforeAuthentication(registry, enforcer, headers));
		}

		@Bean
		@ConditionalOnMissingBean(name = "rateLimitPrincipalFilter")
		FilterRegistrationBean<RateLimitFilter> rateLimitPrincipalFilter(RateLimitProperties properties,
				RateLimitRegistry registry, RateLimitEnforcer enforcer, RateLimitHeaders headers) {
			return registration("rateLimitPrincipalFilter", RateLimitAutoConfiguration.principalOrder(properties.getFilter()),
					RateLimitFilter.afterAuthentication(registry, enforcer, headers));
		}

		/**
		 * A filter's registration. The filter is named as its registration too, so that each keeps its own
		 * once-per-request mark even where no container initializes it with its name.
		 */
		private static FilterRegistrationBean<RateLimitFilter> registration(String name, int order,
				RateLimitFilter filter) {
			filter.setBeanName(name);
			FilterRegistrationBean<RateLimitFilter> registration = new FilterRegistrationBean<>(filter);
			registration.setName(name);
			registration.setOrder(order);
			registration.setDispatcherTypes(DispatcherType.REQUEST);
			return registration;
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(DispatcherServlet.class)
	static class MvcConfiguration {

		@Bean
		@ConditionalOnMissingBean
		RateLimitExceptionHandler rateLimitExceptionHandler(RateLimitHeaders headers) {
			return new RateLimitExceptionHandler(headers);
		}

	}

}
