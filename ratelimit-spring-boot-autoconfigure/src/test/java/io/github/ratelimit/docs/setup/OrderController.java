package io.github.ratelimit.docs.setup;

// tag::annotated[]
import java.util.List;

import io.github.ratelimit.spring.annotation.RateLimited;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

@RestController
class OrderController {

	@RateLimited("orders") // the configured policy: ratelimit.policies.orders
	@GetMapping("/api/orders")
	List<String> orders() {
		return List.of("order-1", "order-2");
	}

	@RateLimited(limits = { "10/1m", "500/1d" }, key = "#customerId") // its own policy, per customer
	@GetMapping("/api/customers/{customerId}/invoice")
	String invoice(@PathVariable String customerId) {
		return "invoice of " + customerId;
	}

}
// end::annotated[]
