package io.github.ratelimit.spring.web.reactive;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webtestclient.autoconfigure.AutoConfigureWebTestClient;
import org.springframework.context.annotation.Import;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * A first WebFlux request through the filter, in memory.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "spring.main.web-application-type=reactive", "ratelimit.backend=in-memory",
				"spring.autoconfigure.exclude=org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
				"ratelimit.policies.hello.paths=/hello", "ratelimit.policies.hello.limits=2/1h" })
@AutoConfigureWebTestClient
class WebFluxSmokeTests {

	@Autowired
	WebTestClient client;

	@Test
	void thirdRequestShouldBeRefused() {
		this.client.get().uri("/hello").exchange().expectStatus().isOk().expectHeader().valueEquals("X-RateLimit-Remaining", "1");
		this.client.get().uri("/hello").exchange().expectStatus().isOk();
		this.client.get().uri("/hello").exchange().expectStatus().isEqualTo(429).expectHeader().exists("Retry-After")
			.expectBody(String.class).consumeWith(System.out::println);
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import(HelloController.class)
	static class App {
	}

	@RestController
	static class HelloController {

		@GetMapping("/hello")
		String hello() {
			return "hello";
		}

	}

}
