package io.github.ratelimit.autoconfigure;

import io.github.ratelimit.spring.RateLimitEnforcer;
import io.github.ratelimit.spring.RateLimitRegistry;
import io.github.ratelimit.spring.web.RateLimitHeaders;
import io.github.ratelimit.spring.web.servlet.ProblemResponseWriter;
import io.github.ratelimit.spring.web.servlet.RateLimitExceptionHandler;
import io.github.ratelimit.spring.web.servlet.RateLimitFilter;
import io.github.ratelimit.spring.web.servlet.ServletCurrentRequest;
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
 * Rate limiting of servlet requests: the filter for policies with paths, the request {@code @RateLimited} calls are
 * made in, and the 429 rendering of their refusals inside Spring MVC.
 */
@AutoConfiguration(after = RateLimitAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass({ DispatcherType.class, FilterRegistrationBean.class })
@ConditionalOnBean(RateLimitRegistry.class)
public final class RateLimitServletAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	ProblemResponseWriter rateLimitProblemResponseWriter() {
		return new ProblemResponseWriter();
	}

	@Bean
	@ConditionalOnMissingBean
	ServletCurrentRequest rateLimitCurrentRequest() {
		return new ServletCurrentRequest();
	}

	@Bean
	@ConditionalOnBooleanProperty(name = "ratelimit.filter.enabled", matchIfMissing = true)
	@ConditionalOnMissingBean(name = "rateLimitFilter")
	FilterRegistrationBean<RateLimitFilter> rateLimitFilter(RateLimitProperties properties, RateLimitRegistry registry,
			RateLimitEnforcer enforcer, RateLimitHeaders headers, ProblemResponseWriter problems) {
		FilterRegistrationBean<RateLimitFilter> registration = new FilterRegistrationBean<>(
				new RateLimitFilter(registry, enforcer, headers, problems));
		registration.setName("rateLimitFilter");
		registration.setOrder(properties.getFilter().getOrder());
		registration.setDispatcherTypes(DispatcherType.REQUEST);
		return registration;
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
