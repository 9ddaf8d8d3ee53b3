package io.github.ratelimit.spring.observation;

import io.micrometer.common.docs.KeyName;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.docs.ObservationDocumentation;

/**
 * The observations of rate limiting: one per decision.
 */
enum RateLimitObservationDocumentation implements ObservationDocumentation {

	/**
	 * One rate limit decision, from the deny cache's answer or the backend call to the outcome. With tracing, the
	 * backend's commands (Lettuce's) are its children.
	 */
	DECISION {

		@Override
		public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
			return DefaultRateLimitObservationConvention.class;
		}

		@Override
		public KeyName[] getLowCardinalityKeyNames() {
			return LowCardinalityKeyNames.values();
		}

	};

	/**
	 * The keys of a decision's observation, all of low cardinality: bounded by the number of policies and plans,
	 * never by the number of clients.
	 */
	public enum LowCardinalityKeyNames implements KeyName {

		/** The policy's name. */
		POLICY {
			@Override
			public String asString() {
				return "policy";
			}
		},

		/**
		 * How the request was decided, as the {@code outcome} tag of the {@code ratelimit.requests} metric:
		 * {@code allowed}, {@code denied}, {@code shadow-denied}, {@code failed-open}, {@code failed-closed},
		 * {@code fallback}; {@code unknown} while deciding or when deciding threw.
		 */
		OUTCOME {
			@Override
			public String asString() {
				return "outcome";
			}
		},

		/** The backend: {@code redis} or {@code in-memory}. */
		BACKEND {
			@Override
			public String asString() {
				return "backend";
			}
		},

		/** The client's plan, as the {@code plan} tag of the {@code ratelimit.requests} metric ({@code none} without plans). */
		PLAN {
			@Override
			public String asString() {
				return "plan";
			}
		}

	}

}
