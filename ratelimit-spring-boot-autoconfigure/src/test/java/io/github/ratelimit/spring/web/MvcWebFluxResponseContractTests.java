package io.github.ratelimit.spring.web;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.ratelimit.spring.annotation.RateLimited;
import io.github.ratelimit.spring.web.ContractTestApplication.OkController;
import io.github.ratelimit.test.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestInstance.Lifecycle;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.publisher.Mono;

import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The response contract of the two web stacks: the same requests, sent to a Spring MVC application (Tomcat) and a
 * WebFlux application (Netty) configured alike, get the same status, headers and body, read on the wire, with each
 * header style. Admitted or refused by the filter, for one- and multi-limit policies, for shadow policies, for a
 * policy with plans; admitted or refused by {@code @RateLimited} (a Spring MVC method returning a {@code String}
 * against a WebFlux one returning a {@code Mono}), refused for a cost no wait can satisfy, refused with 400 for a cost
 * that is no whole number; and with a backend that cannot be reached (fail closed, local fallback, fail open). The
 * servlet stack is the reference.
 * <p>
 * The header style is a setting of the whole application: each style has its pair of applications, as has the
 * unreachable backend, started by the first test that needs it and shared by the others, which never share a policy.
 */
@TestInstance(Lifecycle.PER_CLASS)
class MvcWebFluxResponseContractTests {

	private static final String[] POLICIES = { "ratelimit.policies.tb.paths=/filtered/tb",
			"ratelimit.policies.tb.limits=2/1h", "ratelimit.policies.minute.paths=/filtered/minute",
			"ratelimit.policies.minute.limits=3/1m,100/1d", "ratelimit.policies.hour.paths=/filtered/hour",
			"ratelimit.policies.hour.limits=5/1m,2/1h", "ratelimit.policies.wide.paths=/filtered/two/**",
			"ratelimit.policies.wide.limits=10/1h", "ratelimit.policies.narrow.paths=/filtered/two/policies",
			"ratelimit.policies.narrow.limits=3/1h", "ratelimit.policies.shadow.paths=/filtered/shadow",
			"ratelimit.policies.shadow.limits=1/1h", "ratelimit.policies.shadow.shadow=true",
			"ratelimit.policies.plans.paths=/filtered/plans", "ratelimit.policies.plans.key=param:api-key",
			"ratelimit.policies.plans.plan=expr:#key.startsWith('pro-') ? 'pro' : 'free'",
			"ratelimit.policies.plans.default-plan=free", "ratelimit.policies.plans.plans.free.limits=1/1h",
			"ratelimit.policies.plans.plans.pro.limits=2/1m,100/1d",
			"ratelimit.policies.plans.plans.pro.algorithm=gcra" };

	private static final String UNREACHABLE = "unreachable";

	private final Map<String, TwoStacks> started = new LinkedHashMap<>();

	@AfterAll
	void stopStacks() {
		this.started.values().forEach(TwoStacks::close);
	}

	@ParameterizedTest
	@ValueSource(strings = { "both", "ietf", "legacy", "none" })
	void filterShouldAnswerAlikeOnBothStacks(String headers) {
		TwoStacks stacks = stacks(headers);
		assertStatuses(stacks, "/filtered/tb", 200, 200, 429);
		assertStatuses(stacks, "/filtered/minute", 200, 200, 200, 429);
		assertStatuses(stacks, "/filtered/hour", 200, 200, 429);
		assertStatuses(stacks, "/filtered/two/policies", 200, 200, 200, 429);
		assertStatuses(stacks, "/filtered/shadow", 200, 200);
		assertStatuses(stacks, "/unlimited", 200);
	}

	@Test
	void filterShouldAnswerAlikeOnBothStacksForAPolicyWithPlans() {
		TwoStacks stacks = stacks("both");
		assertThat(stacks.get("/filtered/plans?api-key=pro-1").value("RateLimit-Policy"))
			.isEqualTo("\"plans-pro-1m\";q=2;w=60, \"plans-pro-1d\";q=100;w=86400");
		assertStatuses(stacks, "/filtered/plans?api-key=pro-1", 200, 429);
		assertThat(stacks.get("/filtered/plans?api-key=free-1").value("RateLimit-Policy"))
			.isEqualTo("\"plans-free\";q=1;w=3600");
		assertStatuses(stacks, "/filtered/plans?api-key=free-1", 429);
	}

	@ParameterizedTest
	@ValueSource(strings = { "both", "ietf", "legacy", "none" })
	void rateLimitedShouldAnswerAlikeOnBothStacks(String headers) {
		TwoStacks stacks = stacks(headers);
		assertStatuses(stacks, "/annotated/limited", 200, 200, 429);
		assertStatuses(stacks, "/annotated/costly?cost=3", 429);
		assertStatuses(stacks, "/annotated/costly?cost=11", 429);
		assertStatuses(stacks, "/annotated/costly?cost=2", 200, 429);
		assertStatuses(stacks, "/annotated/costly?cost=0", 400);
		assertStatuses(stacks, "/annotated/costly?cost=many", 400);
	}

	@Test
	void filterShouldAnswerAlikeOnBothStacksWhenTheBackendCannotBeReached() {
		TwoStacks stacks = stacks(UNREACHABLE);
		assertStatuses(stacks, "/filtered/closed", 503, 503);
		assertStatuses(stacks, "/filtered/local", 200, 429);
		assertStatuses(stacks, "/filtered/open", 200, 200);
	}

	@Test
	void rateLimitedShouldAnswerAlikeOnBothStacksWhenTheBackendCannotBeReached() {
		TwoStacks stacks = stacks(UNREACHABLE);
		assertStatuses(stacks, "/annotated/closed", 503, 503);
		assertStatuses(stacks, "/annotated/fallback", 200, 429);
	}

	/**
	 * The applications of a header style, or of the unreachable backend, started on first use.
	 */
	private TwoStacks stacks(String configuration) {
		return this.started.computeIfAbsent(configuration, (name) -> name.equals(UNREACHABLE)
				? start("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + TestRedis.freePort(),
						"spring.data.redis.connect-timeout=500ms", "ratelimit.headers=both",
						"ratelimit.failure-mode=local", "ratelimit.fallback.instances=2",
						"ratelimit.policies.closed.paths=/filtered/closed",
						"ratelimit.policies.closed.limits=5/1m,2/1h", "ratelimit.policies.closed.failure-mode=closed",
						"ratelimit.policies.local.paths=/filtered/local", "ratelimit.policies.local.limits=4/1m,2/1h",
						"ratelimit.policies.open.paths=/filtered/open", "ratelimit.policies.open.limits=1/1h",
						"ratelimit.policies.open.failure-mode=open",
						"ratelimit.policies.annotated-closed.limits=5/1m,2/1h",
						"ratelimit.policies.annotated-closed.failure-mode=closed")
				: start(withHeaders(name, POLICIES)));
	}

	private static TwoStacks start(String... properties) {
		return TwoStacks.start(MvcController.class, WebFluxController.class, properties);
	}

	private static String[] withHeaders(String headers, String... properties) {
		String[] all = new String[properties.length + 1];
		all[0] = "ratelimit.headers=" + headers;
		System.arraycopy(properties, 0, all, 1, properties.length);
		return all;
	}

	/**
	 * Sends as many requests as statuses are expected, each to both stacks, and checks the statuses they got.
	 */
	private static void assertStatuses(TwoStacks stacks, String path, Integer... statuses) {
		List<Integer> sent = new ArrayList<>();
		for (int i = 0; i < statuses.length; i++) {
			sent.add(stacks.get(path).status());
		}
		assertThat(sent).as("statuses of %s", path).containsExactly(statuses);
	}

	/**
	 * The Spring MVC application's {@code @RateLimited} methods, each returning a {@code String}; any other path
	 * answers {@code ok}, limited by the filter's policies.
	 */
	@RestController
	@Import(OkController.class)
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

	/**
	 * The WebFlux application's {@code @RateLimited} methods, the same as {@link MvcController}'s, each returning a
	 * {@code Mono}; any other path answers {@code ok}, limited by the filter's policies.
	 */
	@RestController
	@Import(OkController.class)
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
