package io.github.ratelimit.spring.web.reactive;

import io.github.ratelimit.test.TestClientWebFilter;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * A WebFlux application that answers {@code ok} to every request, for tests of the web filter; a request's
 * {@link TestClientWebFilter} headers say which client (and user) it comes from.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import({ WebFluxTestApplication.OkController.class, TestClientWebFilter.class })
class WebFluxTestApplication {

	/** What a test of this application sets: the reactive stack, although the Servlet API is on the classpath. */
	static final String REACTIVE = "spring.main.web-application-type=reactive";

	@RestController
	static class OkController {

		@RequestMapping("/**")
		String ok() {
			return "ok";
		}

	}

}
