package io.github.ratelimit.spring.observation;

import io.github.ratelimit.spring.observation.RateLimitObservationDocumentation.LowCardinalityKeyNames;
import io.micrometer.common.KeyValues;

/**
 * The default convention of rate limit decisions' observations: named {@value #NAME}, with the low-cardinality keys
 * of {@link LowCardinalityKeyNames} and no high-cardinality key (the client's key is never part of it).
 */
public class DefaultRateLimitObservationConvention implements RateLimitObservationConvention {

	/** The name of a decision's observation. */
	public static final String NAME = "ratelimit.decision";

	/** The {@code outcome} of a decision not (or never) reached. */
	public static final String UNKNOWN = "unknown";

	/** The shared instance. */
	public static final DefaultRateLimitObservationConvention INSTANCE = new DefaultRateLimitObservationConvention();

	@Override
	public String getName() {
		return NAME;
	}

	@Override
	public String getContextualName(RateLimitObservationContext context) {
		return "ratelimit " + context.getPolicy();
	}

	@Override
	public KeyValues getLowCardinalityKeyValues(RateLimitObservationContext context) {
		String outcome = context.getOutcome();
		return KeyValues.of(LowCardinalityKeyNames.BACKEND.withValue(context.getBackend()),
				LowCardinalityKeyNames.OUTCOME.withValue((outcome != null) ? outcome : UNKNOWN),
				LowCardinalityKeyNames.PLAN.withValue(context.getPlan()),
				LowCardinalityKeyNames.POLICY.withValue(context.getPolicy()));
	}

}
