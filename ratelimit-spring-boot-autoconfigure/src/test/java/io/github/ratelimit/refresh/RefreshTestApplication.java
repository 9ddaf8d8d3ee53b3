package io.github.ratelimit.refresh;

import io.github.ratelimit.spring.annotation.RateLimited;
import reactor.core.publisher.Mono;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * An application whose policies a configuration refresh changes: any path answers {@code ok}; {@code /calls} is
 * limited by {@code @RateLimited("calls")}, which takes its limits from configuration (as is {@code /reactive-calls},
 * for one key of its own), and {@code /own} by an annotation with its own limits, both keyed by the
 * {@code X-Client} header.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import(RefreshTestApplication.OkController.class)
class RefreshTestApplication {

	@RestController
	static class OkController {

		@GetMapping("/calls")
		@RateLimited(value = "calls", key = "#client")
		public String calls(@RequestHeader("X-Client") String client) {
			return "calls";
		}

		@GetMapping("/reactive-calls")
		@RateLimited(value = "calls", key = "'reactive'")
		public Mono<String> reactiveCalls() {
			return Mono.just("calls");
		}

		@GetMapping("/own")
		@RateLimited(value = "own", limits = "2/1m", key = "#client")
		public String own(@RequestHeader("X-Client") String client) {
			return "own";
		}

		@RequestMapping("/**")
		public String ok() {
			return "ok";
		}

	}

}
