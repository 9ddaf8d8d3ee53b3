package io.github.ratelimit.docs.readme;

// tag::controller[]
import java.util.List;

import io.github.ratelimit.spring.annotation.RateLimited;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

@RestController
class OrderController {

	@RateLimited("orders") // the policy of application.yml: 10 a minute and 500 a day per API key
	@GetMapping("/api/orders")
	List<String> orders() {
		return List.of("order-1", "order-2");
	}

	@RateLimited(limits = "5/1h", key = "#customerId") // a policy of its own: OrderController.export
	@GetMapping("/api/customers/{customerId}/export")
	String export(@PathVariable String customerId) {
		return "export of " + customerId;
	}

}
// end::controller[]
