package io.github.ratelimit.sample.webflux;

import java.security.Principal;
import java.util.List;

import io.github.ratelimit.spring.annotation.RateLimited;
import reactor.core.publisher.Mono;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The sample's API, the same as the servlet sample's: {@code /api/hello} is limited by the WebFlux filter (policy
 * {@code hello} has paths), {@code /api/orders} by {@link RateLimited @RateLimited} when its {@link Mono} is
 * subscribed to (per API key, on plan {@code free} or {@code pro}), {@code /api/unlimited} by nothing, and
 * {@code /api/account}, which needs HTTP Basic, by the filter before and after Spring Security (policies
 * {@code account-guard} and {@code account}).
 */
@RestController
@RequestMapping("/api")
class SampleController {

	@GetMapping("/hello")
	public Mono<Message> hello() {
		return Mono.just(new Message("hello"));
	}

	@GetMapping("/orders")
	@RateLimited("orders")
	public Mono<Orders> orders() {
		return Mono.fromSupplier(() -> new Orders(List.of(new Order(1, "coffee beans", 2), new Order(2, "grinder", 1))));
	}

	@GetMapping("/account")
	public Mono<Account> account(Mono<Principal> user) {
		return user.map((principal) -> new Account(principal.getName()));
	}

	@GetMapping("/unlimited")
	public Mono<Message> unlimited() {
		return Mono.just(new Message("unlimited"));
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
