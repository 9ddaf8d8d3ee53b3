package io.github.ratelimit.resilience;

/**
 * {@link AbstractRedisTroubleTests} on WebFlux (Reactor Netty, decisions through Lettuce's async API), under
 * BlockHound: the same failure modes, breaker, deny cache, metrics and health as on the servlet stack.
 */
class RedisTroubleWebFluxTests extends AbstractRedisTroubleTests {

	RedisTroubleWebFluxTests() {
		super("spring.main.web-application-type=reactive");
	}

}
