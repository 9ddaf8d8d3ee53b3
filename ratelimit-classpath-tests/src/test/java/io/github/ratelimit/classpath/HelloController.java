package io.github.ratelimit.classpath;

import java.util.Map;

import io.github.ratelimit.spring.annotation.RateLimited;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The web scenarios' endpoints: {@code /hello} for a filter policy, {@code /report} limited by its annotation.
 */
@RestController
public class HelloController {

	@GetMapping("/hello")
	public Map<String, String> hello() {
		return Map.of("message", "hello");
	}

	@GetMapping("/report")
	@RateLimited(limits = "3/1h")
	public Map<String, String> report() {
		return Map.of("message", "report");
	}

}
