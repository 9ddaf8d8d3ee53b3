package io.github.ratelimit.docs.plansandoverrides;

import java.util.Map;
import java.util.Optional;

import org.springframework.stereotype.Component;

/**
 * The page's customers, kept in memory so that its configuration starts without a database.
 */
@Component
class InMemoryCustomers implements CustomerRepository {

	private final Map<String, Customer> customers = Map.of("pro-acme", new Customer("pro-acme", "pro"));

	@Override
	public Optional<Customer> findByApiKey(String apiKey) {
		return Optional.ofNullable(this.customers.get(apiKey));
	}

}
