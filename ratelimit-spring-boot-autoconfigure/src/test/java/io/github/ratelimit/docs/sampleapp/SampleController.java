package io.github.ratelimit.docs.sampleapp;

import java.util.List;

import io.github.ratelimit.spring.annotation.RateLimited;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The method that applies policy {@code orders} of the sample README's configuration, as the sample's own
 * {@code SampleController#orders} does (not on this module's class path).
 */
@RestController
class SampleController {

	@GetMapping("/api/orders")
	@RateLimited("orders")
	public List<String> orders() {
		return List.of("coffee beans", "grinder");
	}

}
