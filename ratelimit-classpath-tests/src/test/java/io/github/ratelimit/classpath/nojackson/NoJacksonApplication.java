package io.github.ratelimit.classpath.nojackson;

import io.github.ratelimit.spring.annotation.RateLimited;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * A servlet application without Jackson, answering plain text: {@code /hello} for a filter policy, {@code /report}
 * limited by its annotation.
 */
@SpringBootApplication(proxyBeanMethods = false)
@Import(NoJacksonApplication.TextController.class)
public class NoJacksonApplication {

	@RestController
	static class TextController {

		@GetMapping("/hello")
		public String hello() {
			return "hello";
		}

		@GetMapping("/report")
		@RateLimited(name = "report", limits = "3/1h")
		public String report() {
			return "report";
		}

	}

}
