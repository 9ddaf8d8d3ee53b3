package io.github.ratelimit.spring.web;

import java.util.List;

import io.github.ratelimit.test.WireResponse;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The responses of policies whose Redis cannot be reached on the servlet stack: those of
 * {@link AbstractRateLimitResponsesWithoutRedisTests}, and the local fallback of {@code @RateLimited}, which sends what
 * the filter sends.
 */
@SpringBootTest(classes = ResponseTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "ratelimit.headers=both", "ratelimit.failure-mode=local", "ratelimit.fallback.instances=2",
				"spring.data.redis.connect-timeout=500ms", "ratelimit.policies.closed.paths=/filtered/closed",
				"ratelimit.policies.closed.limits=5/1m,2/1h", "ratelimit.policies.closed.failure-mode=closed",
				"ratelimit.policies.local.paths=/filtered/local", "ratelimit.policies.local.limits=4/1m,2/1h" })
class RateLimitResponsesWithoutRedisTests extends AbstractRateLimitResponsesWithoutRedisTests {

	@Test
	void localFallbackOfAnAnnotationShouldSendWhatTheFilterSends() {
		List<WireResponse> responses = get("/annotated/fallback", 2);
		assertThat(responses).extracting(WireResponse::status).containsExactly(200, 429);
		responses.forEach(RateLimitResponsesWithoutRedisTests::assertNoRateLimitHeaders);
		WireResponse refused = responses.get(1);
		assertThat(refused.value("Retry-After")).isEqualTo("3600");
		assertThat(ResponseHeaderRules.problem(refused)).containsEntry("policy", "annotated-fallback")
			.containsEntry("violated-policies", List.of("annotated-fallback-1h"));
	}

}
