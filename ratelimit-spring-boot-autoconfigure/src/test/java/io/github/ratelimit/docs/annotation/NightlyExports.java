package io.github.ratelimit.docs.annotation;

import java.time.Duration;
import java.util.Map;

import io.github.ratelimit.core.Decision;
import io.github.ratelimit.spring.RateLimitExceededException;
import io.github.ratelimit.spring.RateLimitedCostException;
import io.github.ratelimit.spring.RateLimiterUnavailableException;

import org.springframework.stereotype.Component;

/**
 * The page's example of a refusal outside a web request: a job calling a limited method.
 */
@Component
class NightlyExports {

	private final Billing billing;

	NightlyExports(Billing billing) {
		this.billing = billing;
	}

	// tag::outside-web[]
	void run(Map<String, Integer> rowsByCustomer) {
		rowsByCustomer.forEach((customerId, rows) -> {
			try {
				this.billing.export(customerId, rows);
			}
			catch (RateLimitExceededException ex) { // refused: the policy's limit is spent
				Decision decision = ex.getDecision();
				if (decision.satisfiable()) {
					Duration retryAfter = decision.retryAfter(); // exact; retryAfterSeconds() rounds up, at least 1
					retryLater(customerId, retryAfter);
				}
				// else it costs more than the policy ever allows: no retry helps
			}
			catch (RateLimiterUnavailableException ex) { // a fail-closed policy whose Redis cannot be reached
				retryLater(customerId, Duration.ofSeconds(1));
			}
			catch (RateLimitedCostException ex) { // the cost expression came to no whole number of permits
				throw new IllegalArgumentException("Cannot export " + rows + " rows", ex);
			}
		});
	}
	// end::outside-web[]

	private void retryLater(String customerId, Duration delay) {
	}

}
