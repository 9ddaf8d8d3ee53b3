package io.github.ratelimit.refresh;

import io.github.ratelimit.spring.annotation.RateLimited;
import reactor.core.publisher.Mono;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * An application whose policies a configuration refresh changes: any path answers {@code ok}; {@code /calls} is
 * limited by {@code @RateLimited("calls")}, which takes its limits from configuration (as is {@code /reactive-calls},
 * for another key), and {@code /own} by an annotation with its own limits.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import(RefreshTestApplication.OkController.class)
class RefreshTestApplication {

	@RestController
	static class OkController {

		@GetMapping("/calls")
		@RateLimited(value = "calls", key = "'calls'")
		public String calls() {
			return "calls";
		}

		@GetMapping("/reactive-calls")
		@RateLimited(value = "calls", key = "'reactive'")
		public Mono<String> reactiveCalls() {
			return Mono.just("calls");
		}

		@GetMapping("/own")
		@RateLimited(value = "own", limits = "2/1m", key = "'own'")
		public String own() {
			return "own";
		}

		@RequestMapping("/**")
		public String ok() {
			return "ok";
		}

	}

}
