package io.github.ratelimit.spring.web;

import io.github.ratelimit.spring.annotation.RateLimited;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * An application whose responses the header tests read on the wire: every path answers {@code ok} (limited by
 * whichever filter policies the test configures), except two annotated endpoints limited by {@link RateLimited}.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import(ResponseTestApplication.ResponseController.class)
class ResponseTestApplication {

	@RestController
	static class ResponseController {

		@RequestMapping("/**")
		String ok() {
			return "ok";
		}

		@GetMapping("/annotated/costly")
		@RateLimited(name = "costly", limits = { "5/1m", "2/1h" }, cost = "#cost")
		public String costly(@RequestParam long cost) {
			return "ok";
		}

		@GetMapping("/annotated/fallback")
		@RateLimited(name = "annotated-fallback", limits = { "4/1m", "2/1h" })
		public String fallback() {
			return "ok";
		}

	}

}
