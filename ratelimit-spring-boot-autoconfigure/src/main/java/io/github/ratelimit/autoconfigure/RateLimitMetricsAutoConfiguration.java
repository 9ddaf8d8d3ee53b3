package io.github.ratelimit.autoconfigure;

import io.github.ratelimit.spring.PolicyLeases;
import io.github.ratelimit.spring.RateLimitRegistry;
import io.github.ratelimit.spring.metrics.RateLimitMetrics;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Micrometer metrics of rate limit decisions (and of leased policies' leases), on the application's {@link MeterRegistry}.
 */
@AutoConfiguration(after = RateLimitAutoConfiguration.class,
		afterName = { "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
				"org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration" })
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean({ RateLimitRegistry.class, MeterRegistry.class })
public final class RateLimitMetricsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RateLimitMetrics rateLimitMetrics(MeterRegistry registry, ObjectProvider<PolicyLeases> leases) {
		return new RateLimitMetrics(registry, leases.getIfAvailable());
	}

}
