package io.github.ratelimit.spring.web;

import java.util.ArrayList;
import java.util.List;

import io.github.ratelimit.spring.web.ContractTestApplication.OkController;
import io.github.ratelimit.test.TestRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The response contract of the two web stacks: the same requests, sent to a Spring MVC application (Tomcat) and a
 * WebFlux application (Netty) configured alike, get the same status, headers and body, read on the wire, with each
 * header style, admitted or refused by the filter, for one- and multi-limit policies, for shadow policies, for a
 * policy with plans, and with a backend that cannot be reached (fail closed, local fallback, fail open). The servlet
 * stack is the reference.
 */
class MvcWebFluxResponseContractTests {

	private static final String[] POLICIES = { "ratelimit.policies.tb.paths=/filtered/tb",
			"ratelimit.policies.tb.limits=2/1h", "ratelimit.policies.minute.paths=/filtered/minute",
			"ratelimit.policies.minute.limits=3/1m,100/1d", "ratelimit.policies.hour.paths=/filtered/hour",
			"ratelimit.policies.hour.limits=5/1m,2/1h", "ratelimit.policies.wide.paths=/filtered/two/**",
			"ratelimit.policies.wide.limits=10/1h", "ratelimit.policies.narrow.paths=/filtered/two/policies",
			"ratelimit.policies.narrow.limits=3/1h", "ratelimit.policies.shadow.paths=/filtered/shadow",
			"ratelimit.policies.shadow.limits=1/1h", "ratelimit.policies.shadow.shadow=true" };

	@ParameterizedTest
	@ValueSource(strings = { "both", "ietf", "legacy", "none" })
	void filterShouldAnswerAlikeOnBothStacks(String headers) {
		try (TwoStacks stacks = TwoStacks.start(OkController.class, OkController.class,
				withHeaders(headers, POLICIES))) {
			assertStatuses(stacks, "/filtered/tb", 200, 200, 429);
			assertStatuses(stacks, "/filtered/minute", 200, 200, 200, 429);
			assertStatuses(stacks, "/filtered/hour", 200, 200, 429);
			assertStatuses(stacks, "/filtered/two/policies", 200, 200, 200, 429);
			assertStatuses(stacks, "/filtered/shadow", 200, 200);
			assertStatuses(stacks, "/unlimited", 200);
		}
	}

	@Test
	void filterShouldAnswerAlikeOnBothStacksForAPolicyWithPlans() {
		try (TwoStacks stacks = TwoStacks.start(OkController.class, OkController.class, "ratelimit.headers=both",
				"ratelimit.policies.plans.paths=/filtered/plans", "ratelimit.policies.plans.key=param:api-key",
				"ratelimit.policies.plans.plan=expr:#key.startsWith('pro-') ? 'pro' : 'free'",
				"ratelimit.policies.plans.default-plan=free", "ratelimit.policies.plans.plans.free.limits=1/1h",
				"ratelimit.policies.plans.plans.pro.limits=2/1m,100/1d",
				"ratelimit.policies.plans.plans.pro.algorithm=gcra")) {
			assertThat(stacks.get("/filtered/plans?api-key=pro-1").value("RateLimit-Policy"))
				.isEqualTo("\"plans-pro-1m\";q=2;w=60, \"plans-pro-1d\";q=100;w=86400");
			assertStatuses(stacks, "/filtered/plans?api-key=pro-1", 200, 429);
			assertThat(stacks.get("/filtered/plans?api-key=free-1").value("RateLimit-Policy"))
				.isEqualTo("\"plans-free\";q=1;w=3600");
			assertStatuses(stacks, "/filtered/plans?api-key=free-1", 429);
		}
	}

	@Test
	void filterShouldAnswerAlikeOnBothStacksWhenTheBackendCannotBeReached() {
		try (TwoStacks stacks = TwoStacks.start(OkController.class, OkController.class,
				"spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + TestRedis.freePort(),
				"spring.data.redis.connect-timeout=500ms", "ratelimit.headers=both", "ratelimit.failure-mode=local",
				"ratelimit.fallback.instances=2", "ratelimit.policies.closed.paths=/filtered/closed",
				"ratelimit.policies.closed.limits=5/1m,2/1h", "ratelimit.policies.closed.failure-mode=closed",
				"ratelimit.policies.local.paths=/filtered/local", "ratelimit.policies.local.limits=4/1m,2/1h",
				"ratelimit.policies.open.paths=/filtered/open", "ratelimit.policies.open.limits=1/1h",
				"ratelimit.policies.open.failure-mode=open")) {
			assertStatuses(stacks, "/filtered/closed", 503, 503);
			assertStatuses(stacks, "/filtered/local", 200, 429);
			assertStatuses(stacks, "/filtered/open", 200, 200);
		}
	}

	static String[] withHeaders(String headers, String... properties) {
		String[] all = new String[properties.length + 1];
		all[0] = "ratelimit.headers=" + headers;
		System.arraycopy(properties, 0, all, 1, properties.length);
		return all;
	}

	/**
	 * Sends as many requests as statuses are expected, each to both stacks, and checks the statuses they got.
	 */
	static void assertStatuses(TwoStacks stacks, String path, Integer... statuses) {
		List<Integer> sent = new ArrayList<>();
		for (int i = 0; i < statuses.length; i++) {
			sent.add(stacks.get(path).status());
		}
		assertThat(sent).as("statuses of %s", path).containsExactly(statuses);
	}

}
