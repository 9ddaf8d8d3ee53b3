package io.github.ratelimit.spring.web;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;

/**
 * The responses of WebFlux filter policies whose Redis cannot be reached, read on the wire from Reactor Netty: those
 * of {@link AbstractRateLimitResponsesWithoutRedisTests}, as the servlet filter sends them.
 */
@SpringBootTest(classes = FilterTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "spring.main.web-application-type=reactive", "ratelimit.headers=both",
				"ratelimit.failure-mode=local", "ratelimit.fallback.instances=2",
				"spring.data.redis.connect-timeout=500ms", "ratelimit.policies.closed.paths=/filtered/closed",
				"ratelimit.policies.closed.limits=5/1m,2/1h", "ratelimit.policies.closed.failure-mode=closed",
				"ratelimit.policies.local.paths=/filtered/local", "ratelimit.policies.local.limits=4/1m,2/1h" })
class RateLimitResponsesWithoutRedisWebFluxTests extends AbstractRateLimitResponsesWithoutRedisTests {

}
