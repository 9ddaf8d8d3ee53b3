package io.github.ratelimit.docs.annotation;

import java.util.List;

import io.github.ratelimit.spring.annotation.RateLimited;

import org.springframework.stereotype.Service;

/**
 * The page's example of a configured policy applied by name.
 */
@Service
public class Orders {

	// tag::configured[]
	@RateLimited("orders") // ratelimit.policies.orders: its limits, algorithm, key strategy and cost
	public List<String> list() {
		return List.of("order-1", "order-2");
	}
	// end::configured[]

}
