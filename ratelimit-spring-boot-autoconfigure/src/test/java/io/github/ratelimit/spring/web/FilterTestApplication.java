package io.github.ratelimit.spring.web;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * An application that answers {@code ok} to every request, for tests of the filter.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import(FilterTestApplication.OkController.class)
class FilterTestApplication {

	@RestController
	static class OkController {

		@RequestMapping("/**")
		String ok() {
			return "ok";
		}

	}

}
