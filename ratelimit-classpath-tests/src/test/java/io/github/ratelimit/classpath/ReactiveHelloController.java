package io.github.ratelimit.classpath;

import java.util.Map;

import io.github.ratelimit.spring.annotation.RateLimited;
import reactor.core.publisher.Mono;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The reactive scenarios' endpoints: {@code /hello} for a filter policy, {@code /report} limited by its annotation,
 * and {@code /blocking}, which blocks the thread that serves it, to show that BlockHound watches the server's event
 * loops.
 */
@RestController
public class ReactiveHelloController {

	@GetMapping("/hello")
	public Mono<Map<String, String>> hello() {
		return Mono.just(Map.of("message", "hello"));
	}

	@GetMapping("/report")
	@RateLimited(name = "report", limits = "3/1h")
	public Mono<Map<String, String>> report() {
		return Mono.fromSupplier(() -> Map.of("message", "report"));
	}

	@GetMapping("/blocking")
	public Mono<Map<String, String>> blocking() throws InterruptedException {
		Thread.sleep(1);
		return Mono.just(Map.of("message", "blocked"));
	}

}
