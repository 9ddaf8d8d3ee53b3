package io.github.ratelimit.docs.plansandoverrides;

import java.util.Optional;

/**
 * The page's customer table, which {@link CustomerPlansConfiguration}'s resolver looks API keys up in.
 */
interface CustomerRepository {

	Optional<Customer> findByApiKey(String apiKey);

}
