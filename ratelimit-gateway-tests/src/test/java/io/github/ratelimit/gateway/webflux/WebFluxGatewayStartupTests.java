package io.github.ratelimit.gateway.webflux;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

import io.github.ratelimit.autoconfigure.InvalidRateLimitConfigurationException;
import io.github.ratelimit.spring.RateLimitRegistry;
import io.github.ratelimit.test.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.cloud.context.environment.EnvironmentChangeEvent;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.MutablePropertySources;
import org.springframework.test.web.reactive.server.WebTestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.within;

/**
 * Gateways that {@link WebFluxGatewayTests}' shared one cannot be: one whose Redis cannot be reached, where a
 * fail-closed policy a route names answers 503 exactly as the same policy on {@code paths}, and whose configuration
 * is refreshed; one whose route names a policy that is not configured, which does not start.
 */
class WebFluxGatewayStartupTests {

	private static final String LIMITED = "ratelimit.policies.limited.limits";

	private static ConfigurableApplicationContext unreachable;

	@BeforeAll
	static void startWithUnreachableRedis() {
		unreachable = start("--spring.config.name=webflux-gateway", "--spring.data.redis.host=127.0.0.1",
				"--spring.data.redis.port=" + TestRedis.freePort(), "--spring.data.redis.connect-timeout=500ms",
				"--ratelimit.failure-mode=closed");
	}

	@AfterAll
	static void stop() {
		if (unreachable != null) {
			unreachable.close();
		}
	}

	@Test
	void failClosedRoutePolicyAnswers503AsThePathsPolicyWhenRedisCannotBeReached() {
		WebTestClient client = WebFluxGatewayTests
			.client(unreachable.getEnvironment().getRequiredProperty("local.server.port", Integer.class));
		for (int i = 0; i < 2; i++) {
			WebFluxGatewayTests.Response paths = WebFluxGatewayTests.Response.of(client, "/contract-paths/x",
					"contract-paths");
			WebFluxGatewayTests.Response route = WebFluxGatewayTests.Response.of(client, "/contract-route/x",
					"contract-route");
			assertThat(paths.status()).isEqualTo(503);
			assertThat(paths.body()).contains("temporary-reduced-capacity");
			assertThat(route.withoutSeconds()).isEqualTo(paths.withoutSeconds());
			assertThat(route.seconds()).isNotEmpty().hasSameSizeAs(paths.seconds());
			for (int j = 0; j < paths.seconds().size(); j++) {
				assertThat(route.seconds().get(j)).isCloseTo(paths.seconds().get(j), within(1L));
			}
		}
	}

	@Test
	void refreshWhoseRoutesNameAPolicyThatIsNotConfiguredIsRefused() {
		String route = "spring.cloud.gateway.server.webflux.routes[0]";
		Map<String, Object> changed = new LinkedHashMap<>();
		changed.put(LIMITED, "5/1h");
		changed.put(route + ".id", "refreshed");
		changed.put(route + ".uri", Upstream.uri());
		changed.put(route + ".predicates[0]", "Path=/refreshed/**");
		changed.put(route + ".filters[0]", "RateLimit=missing");
		MutablePropertySources sources = unreachable.getEnvironment().getPropertySources();
		sources.addFirst(new MapPropertySource("refresh", changed));
		try {
			unreachable.publishEvent(new EnvironmentChangeEvent(unreachable, changed.keySet()));
			assertThat(limitsOf("limited")).isEqualTo("[3/1h]");
			changed.keySet().removeIf((key) -> key.startsWith(route));
			unreachable.publishEvent(new EnvironmentChangeEvent(unreachable, Set.of(LIMITED)));
			assertThat(limitsOf("limited")).isEqualTo("[5/1h]");
		}
		finally {
			sources.remove("refresh");
			unreachable.publishEvent(new EnvironmentChangeEvent(unreachable, Set.of(LIMITED)));
		}
	}

	private static String limitsOf(String policy) {
		return unreachable.getBean(RateLimitRegistry.class).find(policy).orElseThrow().defaultPlan().policy().limits()
			.toString();
	}

	@Test
	void routeNamingAPolicyThatIsNotConfiguredFailsStartUp() {
		String route = "spring.cloud.gateway.server.webflux.routes[0]";
		assertThatExceptionOfType(InvalidRateLimitConfigurationException.class)
			.isThrownBy(() -> start("--spring.config.name=none", "--" + route + ".id=orders",
					"--" + route + ".uri=" + Upstream.uri(), "--" + route + ".predicates[0]=Path=/orders/**",
					"--" + route + ".filters[0]=RateLimit=orders,ordres", "--ratelimit.policies.orders.limits=1/1m",
					"--ratelimit.policies.dsl.limits=1/1m", "--spring.main.web-application-type=reactive",
					"--spring.data.redis.host=" + TestRedis.get().host(),
					"--spring.data.redis.port=" + TestRedis.get().port()).close())
			.withMessageContaining("Route 'orders' names rate limit policy 'ordres', and no such policy is configured")
			.satisfies((ex) -> assertThat(ex.getProperty()).isEqualTo(route + ".filters[0]"));
	}

	private static ConfigurableApplicationContext start(String... arguments) {
		String[] all = new String[arguments.length + 2];
		all[0] = "--server.port=0";
		all[1] = "--upstream.uri=" + Upstream.uri();
		System.arraycopy(arguments, 0, all, 2, arguments.length);
		return new SpringApplicationBuilder(WebFluxGatewayApplication.class).run(all);
	}

}
