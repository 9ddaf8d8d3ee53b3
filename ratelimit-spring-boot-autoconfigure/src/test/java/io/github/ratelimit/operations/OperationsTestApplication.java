package io.github.ratelimit.operations;

import java.util.Map;

import io.github.ratelimit.spring.annotation.RateLimited;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * A small application for the operations tests: filtered paths and annotated methods.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
class OperationsTestApplication {

	@RestController
	static class Controller {

		@GetMapping("/hello")
		Map<String, String> hello() {
			return Map.of("message", "hello");
		}

		@GetMapping("/annotated")
		@RateLimited(name = "annotated", limits = "2/1h")
		Map<String, String> annotated() {
			return Map.of("message", "annotated");
		}

		@GetMapping("/listed")
		@RateLimited(name = "listed", limits = "2/1h")
		Map<String, String> listed() {
			return Map.of("message", "listed");
		}

		@GetMapping("/keyed")
		@RateLimited(name = "keyed", limits = "100/1h")
		Map<String, String> keyed() {
			return Map.of("message", "keyed");
		}

	}

}
