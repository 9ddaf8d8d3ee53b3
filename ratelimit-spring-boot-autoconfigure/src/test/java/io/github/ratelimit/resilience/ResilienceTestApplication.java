package io.github.ratelimit.resilience;

import java.util.Map;

import io.github.ratelimit.spring.annotation.RateLimited;

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

		@GetMapping("/annotated")
		@RateLimited(name = "annotated", limits = "3/1h")
		Map<String, String> annotated() {
			return Map.of("message", "annotated");
		}

	}

}
