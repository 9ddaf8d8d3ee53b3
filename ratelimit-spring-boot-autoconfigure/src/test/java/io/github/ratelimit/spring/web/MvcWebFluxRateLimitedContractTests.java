package io.github.ratelimit.spring.web;

import io.github.ratelimit.spring.annotation.RateLimited;
import io.github.ratelimit.test.TestRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.publisher.Mono;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import static io.github.ratelimit.spring.web.MvcWebFluxResponseContractTests.assertStatuses;
import static io.github.ratelimit.spring.web.MvcWebFluxResponseContractTests.withHeaders;

/**
 * The response contract of {@code @RateLimited} on the two web stacks: a Spring MVC controller method returning a
 * {@code String} and a WebFlux one returning a {@code Mono}, limited alike, answer the same requests with the same
 * status, headers and body: admitted, refused, refused for a cost no wait can satisfy, refused with 400 for a cost that
 * is no whole number, with each header style, and with a backend that cannot be reached.
 */
class MvcWebFluxRateLimitedContractTests {

	@ParameterizedTest
	@ValueSource(strings = { "both", "ietf", "legacy", "none" })
	void rateLimitedShouldAnswerAlikeOnBothStacks(String headers) {
		try (TwoStacks stacks = TwoStacks.start(MvcController.class, WebFluxController.class, withHeaders(headers))) {
			assertStatuses(stacks, "/annotated/limited", 200, 200, 429);
			assertStatuses(stacks, "/annotated/costly?cost=3", 429);
			assertStatuses(stacks, "/annotated/costly?cost=11", 429);
			assertStatuses(stacks, "/annotated/costly?cost=2", 200, 429);
			assertStatuses(stacks, "/annotated/costly?cost=0", 400);
			assertStatuses(stacks, "/annotated/costly?cost=many", 400);
		}
	}

	@Test
	void rateLimitedShouldAnswerAlikeOnBothStacksWhenTheBackendCannotBeReached() {
		try (TwoStacks stacks = TwoStacks.start(MvcController.class, WebFluxController.class,
				"spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + TestRedis.freePort(),
				"spring.data.redis.connect-timeout=500ms", "ratelimit.headers=both", "ratelimit.failure-mode=local",
				"ratelimit.fallback.instances=2", "ratelimit.policies.annotated-closed.limits=5/1m,2/1h",
				"ratelimit.policies.annotated-closed.failure-mode=closed")) {
			assertStatuses(stacks, "/annotated/closed", 503, 503);
			assertStatuses(stacks, "/annotated/fallback", 200, 429);
		}
	}

	@RestController
	static class MvcController {

		@GetMapping("/annotated/limited")
		@RateLimited(name = "annotated", limits = "2/1h")
		public String limited() {
			return "ok";
		}

		@GetMapping("/annotated/costly")
		@RateLimited(name = "costly", limits = { "5/1m", "2/1h" }, cost = "#cost")
		public String costly(@RequestParam String cost) {
			return "ok";
		}

		@GetMapping("/annotated/closed")
		@RateLimited(name = "annotated-closed", limits = { "5/1m", "2/1h" })
		public String closed() {
			return "ok";
		}

		@GetMapping("/annotated/fallback")
		@RateLimited(name = "annotated-fallback", limits = { "4/1m", "2/1h" })
		public String fallback() {
			return "ok";
		}

	}

	@RestController
	static class WebFluxController {

		@GetMapping("/annotated/limited")
		@RateLimited(name = "annotated", limits = "2/1h")
		public Mono<String> limited() {
			return Mono.just("ok");
		}

		@GetMapping("/annotated/costly")
		@RateLimited(name = "costly", limits = { "5/1m", "2/1h" }, cost = "#cost")
		public Mono<String> costly(@RequestParam String cost) {
			return Mono.just("ok");
		}

		@GetMapping("/annotated/closed")
		@RateLimited(name = "annotated-closed", limits = { "5/1m", "2/1h" })
		public Mono<String> closed() {
			return Mono.just("ok");
		}

		@GetMapping("/annotated/fallback")
		@RateLimited(name = "annotated-fallback", limits = { "4/1m", "2/1h" })
		public Mono<String> fallback() {
			return Mono.just("ok");
		}

	}

}
