package io.github.ratelimit.autoconfigure;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;

/**
 * Stops a reactive (WebFlux) application at start-up with one sentence: this version limits servlet applications
 * only, and a reactive one would otherwise start and limit nothing.
 */
@AutoConfiguration(before = RateLimitAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "ratelimit.enabled", matchIfMissing = true)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
public final class RateLimitReactiveAutoConfiguration {

	@Bean
	Object rateLimitReactiveNotSupported() {
		throw new InvalidRateLimitConfigurationException("ratelimit.enabled",
				"this version of the rate limiter supports servlet (Spring MVC) applications only, and this is a "
						+ "reactive (WebFlux) application, whose requests it would not limit",
				"set ratelimit.enabled=false, or run the application on Spring MVC", null);
	}

}
