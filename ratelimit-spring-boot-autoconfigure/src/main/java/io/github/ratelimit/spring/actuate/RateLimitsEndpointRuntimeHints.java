package io.github.ratelimit.spring.actuate;

import io.github.ratelimit.spring.actuate.RateLimitsEndpoint.ClientState;
import io.github.ratelimit.spring.actuate.RateLimitsEndpoint.LeaseReport;
import io.github.ratelimit.spring.actuate.RateLimitsEndpoint.OverrideReport;
import io.github.ratelimit.spring.actuate.RateLimitsEndpoint.PlanReport;
import io.github.ratelimit.spring.actuate.RateLimitsEndpoint.PolicyOverrides;
import io.github.ratelimit.spring.actuate.RateLimitsEndpoint.PolicyReport;
import io.github.ratelimit.spring.actuate.RateLimitsEndpoint.RateLimitsReport;
import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * Lets Jackson write the {@code ratelimits} endpoint's answers in a native image. Spring Boot registers what an
 * operation declares it returns, but not the body inside a {@code WebEndpointResponse<Object>} (the client's state
 * after setting or removing an override, or after a reset).
 */
class RateLimitsEndpointRuntimeHints implements RuntimeHintsRegistrar {

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		new BindingReflectionHintsRegistrar().registerReflectionHints(hints.reflection(), RateLimitsReport.class,
				PolicyReport.class, PlanReport.class, PolicyOverrides.class, OverrideReport.class, ClientState.class,
				LeaseReport.class);
	}

}
