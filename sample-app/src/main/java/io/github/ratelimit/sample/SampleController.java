package io.github.ratelimit.sample;

import java.security.Principal;
import java.util.List;

import io.github.ratelimit.spring.annotation.RateLimited;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The sample's API: {@code /api/hello} is limited by the servlet filter (policy {@code hello} has paths),
 * {@code /api/orders} by {@link RateLimited @RateLimited} (per API key, on plan {@code free} or {@code pro}),
 * {@code /api/unlimited} by nothing, and {@code /api/account}, which needs HTTP Basic, by the filter before and after
 * Spring Security (policies {@code account-guard} and {@code account}).
 */
@RestController
@RequestMapping("/api")
class SampleController {

	@GetMapping("/hello")
	public Message hello() {
		return new Message("hello");
	}

	@GetMapping("/orders")
	@RateLimited("orders")
	public Orders orders() {
		return new Orders(List.of(new Order(1, "coffee beans", 2), new Order(2, "grinder", 1)));
	}

	@GetMapping("/account")
	public Account account(Principal user) {
		return new Account(user.getName());
	}

	@GetMapping("/unlimited")
	public Message unlimited() {
		return new Message("unlimited");
	}

	record Message(String message) {
	}

	record Account(String user) {
	}

	record Orders(List<Order> orders) {
	}

	record Order(long id, String item, int quantity) {
	}

}
