package io.github.ratelimit.autoconfigure;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.util.ClassUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Without Spring Cloud Gateway (absent from this module's tests), its auto-configuration backs off and a WebFlux
 * application starts as it always did; with it, the gateway tests ({@code ratelimit-gateway-tests}) prove what it
 * wires.
 */
class RateLimitGatewayWebFluxAutoConfigurationTests {

	private final ReactiveWebApplicationContextRunner contextRunner = new ReactiveWebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class,
				RateLimitGatewayWebFluxAutoConfiguration.class))
		.withPropertyValues("ratelimit.backend=in-memory", "ratelimit.policies.orders.limits=10/1m",
				"ratelimit.policies.orders.paths=/orders/**");

	@Test
	void backsOffWithoutTheGateway() {
		assertThat(ClassUtils.isPresent("org.springframework.cloud.gateway.filter.factory.GatewayFilterFactory",
				getClass().getClassLoader())).isFalse();
		this.contextRunner.run((context) -> assertThat(context).hasNotFailed()
			.doesNotHaveBean(RateLimitGatewayWebFluxAutoConfiguration.class)
			.doesNotHaveBean(RoutePolicies.class));
	}

}
