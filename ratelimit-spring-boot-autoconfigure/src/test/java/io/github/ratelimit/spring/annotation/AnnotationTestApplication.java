package io.github.ratelimit.spring.annotation;

import java.security.Principal;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * An application whose controllers are rate limited by {@link RateLimited}.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import({ AnnotationTestApplication.AnnotatedController.class, AnnotationTestApplication.ClassLevelController.class })
class AnnotationTestApplication {

	@RestController
	@RequestMapping("/annotated")
	static class AnnotatedController {

		@GetMapping("/default")
		@RateLimited(limits = "1/1h")
		public String byDefault() {
			return "ok";
		}

		@GetMapping("/named")
		@RateLimited(name = "named", limits = "1/1h")
		public String named() {
			return "ok";
		}

		@GetMapping("/valued")
		@RateLimited(value = "valued", limits = "1/1h")
		public String valued() {
			return "ok";
		}

		@GetMapping("/configured")
		@RateLimited(name = "configured", limits = "1/1h")
		public String configured() {
			return "ok";
		}

		@GetMapping("/configuration-only")
		@RateLimited("configuration-only")
		public String configurationOnly() {
			return "ok";
		}

		@GetMapping("/shadowed")
		@RateLimited("shadowed")
		public String shadowed() {
			return "ok";
		}

		@GetMapping("/behind-filter")
		@RateLimited(name = "behind-filter", limits = "1/1h")
		public String behindFilter() {
			return "ok";
		}

		@GetMapping("/customers/{customer}")
		@RateLimited(name = "per-customer", limits = "1/1h", key = "#customer")
		public String customer(@PathVariable String customer) {
			return "ok";
		}

		@GetMapping("/tenant")
		@RateLimited(name = "per-tenant", limits = "1/1h", key = "#request.getHeader('X-Tenant')")
		public String tenant() {
			return "ok";
		}

		@GetMapping("/user")
		@RateLimited(name = "per-user", limits = "1/1h", key = "#principal?.name")
		public String user(Principal principal) {
			return "ok";
		}

		@GetMapping("/weighted")
		@RateLimited(name = "weighted", limits = "5/1h", cost = "2")
		public String weighted() {
			return "ok";
		}

		@GetMapping("/units")
		@RateLimited(name = "units", limits = "10/1h", cost = "#units")
		public String units(@RequestParam long units) {
			return "ok";
		}

		@GetMapping("/repeated")
		@RateLimited(name = "per-hour", limits = "3/1h")
		@RateLimited(name = "per-day", limits = "2/1d")
		public String repeated() {
			return "ok";
		}

	}

	@RestController
	@RequestMapping("/class-level")
	@RateLimited(limits = "1/1h")
	static class ClassLevelController {

		@GetMapping("/first")
		public String first() {
			return "ok";
		}

		@GetMapping("/second")
		public String second() {
			return "ok";
		}

	}

}
