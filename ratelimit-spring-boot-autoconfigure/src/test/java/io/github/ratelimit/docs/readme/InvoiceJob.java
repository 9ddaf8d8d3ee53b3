package io.github.ratelimit.docs.readme;

import java.time.Duration;

import io.github.ratelimit.spring.RateLimitExceededException;
import io.github.ratelimit.spring.annotation.RateLimited;

import org.springframework.stereotype.Service;

/**
 * The README's example of a refusal outside a web request.
 */
class InvoiceJob {

	// tag::outside-web[]
	@Service
	static class Invoices {

		@RateLimited(name = "invoices", limits = "100/1m") // the same 100 a minute across every instance
		void send(String invoiceId) {
			// call the partner's API
		}

	}

	static void sendAll(Invoices invoices, Iterable<String> ids) {
		for (String id : ids) {
			try {
				invoices.send(id);
			}
			catch (RateLimitExceededException ex) {
				Duration retryAfter = ex.getDecision().retryAfter(); // when the next permit is free
				// requeue id after retryAfter
			}
		}
	}
	// end::outside-web[]

}
