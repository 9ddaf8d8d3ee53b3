package io.github.ratelimit.spring.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * The convention of rate limit decisions' observations: a bean of this type replaces
 * {@link DefaultRateLimitObservationConvention}.
 */
public interface RateLimitObservationConvention extends ObservationConvention<RateLimitObservationContext> {

	@Override
	default boolean supportsContext(Observation.Context context) {
		return context instanceof RateLimitObservationContext;
	}

}
