package io.github.ratelimit.docs.annotation;

import io.github.ratelimit.spring.annotation.RateLimited;

import org.springframework.stereotype.Service;

/**
 * The page's examples of a key taken from an argument and a cost computed from one.
 */
@Service
public class Billing {

	// tag::key[]
	@RateLimited(limits = { "10/1m", "500/1d" }, key = "#customerId") // per customer: 10 a minute, 500 a day
	public Invoice invoice(String customerId) {
		return new Invoice(customerId);
	}
	// end::key[]

	// tag::cost[]
	@RateLimited(name = "exports", limits = "5000/1h", cost = "#rows / 1000 + 1") // 1, plus 1 per full 1,000 rows
	public Export export(String customerId, int rows) {
		return new Export(customerId, rows);
	}
	// end::cost[]

	public record Invoice(String customerId) {
	}

	public record Export(String customerId, int rows) {
	}

}
