package io.github.ratelimit.docs.keys;

import org.springframework.stereotype.Component;

/**
 * The application's own directory of customers, which the page's user-keyed resolver asks.
 */
@Component
class CustomerDirectory {

	String idOf(String userName) {
		return "customer-" + userName;
	}

}
