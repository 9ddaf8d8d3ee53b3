package io.github.ratelimit.resilience;

import java.util.Map;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * A small application for the tests that make Redis fail.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
class ResilienceTestApplication {

	@RestController
	static class Controller {

		@GetMapping("/hello")
		Map<String, String> hello() {
			return Map.of("message", "hello");
		}

	}

}
