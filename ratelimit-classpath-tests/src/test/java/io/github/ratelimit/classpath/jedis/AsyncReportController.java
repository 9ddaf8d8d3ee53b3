package io.github.ratelimit.classpath.jedis;

import java.util.Map;
import java.util.concurrent.CompletableFuture;

import io.github.ratelimit.spring.annotation.RateLimited;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * An endpoint whose {@code @RateLimited} method returns a future, decided without Reactor.
 */
@RestController
public class AsyncReportController {

	@GetMapping("/async-report")
	@RateLimited(limits = "2/1h")
	public CompletableFuture<Map<String, String>> report() {
		return CompletableFuture.completedFuture(Map.of("message", "async report"));
	}

}
