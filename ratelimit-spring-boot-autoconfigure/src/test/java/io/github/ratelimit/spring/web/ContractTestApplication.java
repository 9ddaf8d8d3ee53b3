package io.github.ratelimit.spring.web;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The application the response contract tests start on both web stacks, with the controllers each test gives it.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
class ContractTestApplication {

	/**
	 * Answers {@code ok} on every path, limited by whichever filter policies a test configures: a method returning a
	 * {@code String} runs unchanged on Spring MVC and on WebFlux.
	 */
	@RestController
	static class OkController {

		@RequestMapping("/**")
		String ok() {
			return "ok";
		}

	}

}
