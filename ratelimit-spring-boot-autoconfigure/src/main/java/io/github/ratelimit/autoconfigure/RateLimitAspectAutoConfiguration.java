package io.github.ratelimit.autoconfigure;

import io.github.ratelimit.spring.CurrentRequest;
import io.github.ratelimit.spring.RateLimitEnforcer;
import io.github.ratelimit.spring.RateLimitRegistry;
import io.github.ratelimit.spring.annotation.RateLimitedAspect;
import io.github.ratelimit.spring.web.RateLimitHeaders;
import org.aspectj.weaver.Advice;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Enforcement of {@code @RateLimited}, when AspectJ's weaver is on the classpath (spring-boot-starter-aspectj).
 */
@AutoConfiguration(after = { RateLimitAutoConfiguration.class, RateLimitServletAutoConfiguration.class,
		AopAutoConfiguration.class })
@ConditionalOnClass(Advice.class)
@ConditionalOnBean(RateLimitRegistry.class)
public final class RateLimitAspectAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RateLimitedAspect rateLimitedAspect(RateLimitRegistry registry, RateLimitEnforcer enforcer,
			RateLimitHeaders headers, CurrentRequest currentRequest) {
		return new RateLimitedAspect(registry, enforcer, headers, currentRequest);
	}

	/**
	 * No web request, for applications without a web stack (each stack's auto-configuration provides its own).
	 */
	@Bean
	@ConditionalOnMissingBean
	CurrentRequest rateLimitCurrentRequest() {
		return CurrentRequest.NONE;
	}

}
