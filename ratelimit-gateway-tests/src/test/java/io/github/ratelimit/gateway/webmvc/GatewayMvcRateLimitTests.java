package io.github.ratelimit.gateway.webmvc;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import io.github.ratelimit.autoconfigure.InvalidRateLimitConfigurationException;
import io.github.ratelimit.gateway.webmvc.Wire.Answer;
import io.github.ratelimit.spring.PolicyDefinition;
import io.github.ratelimit.spring.RateLimitRegistry;
import io.github.ratelimit.test.TestRedis;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestInstance.Lifecycle;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.cloud.context.environment.EnvironmentChangeEvent;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.MutablePropertySources;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The {@code RateLimit} filter on the routes of Spring Cloud Gateway's WebMVC server, over real HTTP on a real Redis,
 * in one gateway application configured in YAML ({@code gateway-webmvc.yml}) plus one route of the Java DSL, all to a
 * local upstream: a route's policy answers as the servlet filter answers for a {@code paths} policy of the same limits
 * on another route (status, headers but {@code Date}, body), and is counted in the same metrics. Other applications:
 * one whose Redis cannot be reached answers 503 alike on both, one with rate limiting switched off lets every request
 * through, and one whose route names a policy that is not configured does not start.
 */
@TestInstance(Lifecycle.PER_CLASS)
class GatewayMvcRateLimitTests {

	private static final AtomicLong PREFIXES = new AtomicLong();

	private final List<ConfigurableApplicationContext> started = new ArrayList<>();

	private Upstream upstream;

	private ConfigurableApplicationContext gateway;

	private int port;

	@BeforeAll
	void startGateway() {
		this.upstream = Upstream.start();
		this.gateway = start("spring.data.redis.host=" + TestRedis.get().host(),
				"spring.data.redis.port=" + TestRedis.get().port());
		this.port = port(this.gateway);
	}

	@AfterAll
	void stopGateway() {
		this.started.forEach(ConfigurableApplicationContext::close);
		if (this.upstream != null) {
			this.upstream.close();
		}
	}

	@Test
	void routeShouldAdmitTheLimitThenRefuseAsTheServletFilterDoes() {
		assertAdmitsTwoThenRefusesAsTheServletFilter("/paths/orders", "/route/orders", "route", "paths");
		Answer refused = Wire.get(this.port, "/route/orders");
		assertThat(refused.value("Retry-After")).isNotNull();
		assertThat(refused.value("Content-Type")).isEqualTo("application/problem+json");
		assertThat(refused.value("RateLimit-Policy")).isEqualTo("\"route\";q=2;w=3600");
		assertThat(refused.body()).contains("\"policy\":\"route\"", "\"instance\":\"/route/orders\"",
				"\"violated-policies\":[\"route\"]");
	}

	@Test
	void routeOfTheJavaDslShouldAnswerAsTheServletFilterDoes() {
		assertAdmitsTwoThenRefusesAsTheServletFilter("/mvc/a", "/dsl/a", "dsl", "mvc");
	}

	@Test
	void routeOfTheJavaDslNamingAPolicyThatIsNotConfiguredShouldFailItsRequests() {
		Answer failed = Wire.get(this.port, "/unconfigured/a");
		assertThat(failed.status()).isEqualTo(500);
		assertThat(failed.body()).doesNotContain(Upstream.BODY);
	}

	@Test
	void routesShouldLetEveryRequestThroughWhenRateLimitingIsSwitchedOff() {
		int off = port(start("ratelimit.enabled=false"));
		for (int i = 0; i < 3; i++) {
			Answer route = Wire.get(off, "/route/orders");
			assertThat(route.status()).isEqualTo(200);
			assertThat(route.body()).isEqualTo(Upstream.BODY);
		}
	}

	@Test
	void routeWithoutTheFilterShouldNotBeLimited() {
		for (int i = 0; i < 5; i++) {
			Answer open = Wire.get(this.port, "/open/anything");
			assertThat(open.status()).isEqualTo(200);
			assertThat(open.body()).isEqualTo(Upstream.BODY);
			assertThat(open.value("RateLimit")).isNull();
			assertThat(open.value("X-RateLimit-Limit")).isNull();
		}
	}

	@Test
	void routeShouldKeyByHeaderAndApplyPlans() {
		assertThat(Wire.get(this.port, "/plans/a", "X-Api-Key", "free-1").status()).isEqualTo(200);
		Answer free = Wire.get(this.port, "/plans/a", "X-Api-Key", "free-1");
		assertThat(free.status()).isEqualTo(429);
		assertThat(free.body()).contains("\"plan\":\"free\"");
		assertThat(Wire.get(this.port, "/plans/a", "X-Api-Key", "free-2").status()).isEqualTo(200);
		Answer pro = Wire.get(this.port, "/plans/a", "X-Api-Key", "pro-1");
		assertThat(pro.status()).isEqualTo(200);
		assertThat(pro.value("RateLimit-Policy"))
			.isEqualTo("\"plans-pro-1m\";q=2;w=60, \"plans-pro-1d\";q=100;w=86400");
		assertThat(Wire.get(this.port, "/plans/a", "X-Api-Key", "pro-1").status()).isEqualTo(200);
		assertThat(Wire.get(this.port, "/plans/a", "X-Api-Key", "pro-1").status()).isEqualTo(429);
	}

	@Test
	void routeShouldApplyEachPolicyItNames() {
		assertThat(Wire.get(this.port, "/two/a").value("RateLimit")).isEqualTo("\"narrow\";r=1;t=1800");
		assertThat(Wire.get(this.port, "/two/a").status()).isEqualTo(200);
		Answer refused = Wire.get(this.port, "/two/a");
		assertThat(refused.status()).isEqualTo(429);
		assertThat(refused.body()).contains("\"policy\":\"narrow\"");
	}

	@Test
	void routeShouldApplyAPolicyToTheMethodsItLimits() {
		for (int i = 0; i < 3; i++) {
			assertThat(Wire.get(this.port, "/posts/a").status()).isEqualTo(200);
		}
		assertThat(Wire.send(this.port, "POST", "/posts/a").status()).isEqualTo(200);
		assertThat(Wire.send(this.port, "POST", "/posts/a").status()).isEqualTo(429);
	}

	@Test
	void policyTheFilterAndTheRouteBothApplyShouldChargeARequestOnce() {
		assertThat(Wire.get(this.port, "/both/a").status()).isEqualTo(200);
		assertThat(Wire.get(this.port, "/both/a").status()).isEqualTo(200);
		assertThat(Wire.get(this.port, "/both/a").status()).isEqualTo(429);
	}

	@Test
	void refreshThatLeavesARouteNamingAPolicyThatIsNotConfiguredShouldBeRejected() {
		MutablePropertySources sources = this.gateway.getEnvironment().getPropertySources();
		String gateway = "spring.cloud.gateway.server.webmvc.routes[0].";
		sources.addFirst(new MapPropertySource("refreshed", Map.of("ratelimit.policies.route.limits", "5/1h",
				gateway + "id", "renamed", gateway + "uri", this.upstream.uri().toString(), gateway + "predicates[0]",
				"Path=/renamed/**", gateway + "filters[0]", "RateLimit=renamed")));
		try {
			this.gateway.publishEvent(
					new EnvironmentChangeEvent(this.gateway, Set.of("ratelimit.policies.route.limits")));
		}
		finally {
			sources.remove("refreshed");
		}
		PolicyDefinition route = this.gateway.getBean(RateLimitRegistry.class).find("route").orElseThrow();
		assertThat(route.defaultPlan().policy().limits()).extracting(Object::toString).containsExactly("2/1h");
	}

	@Test
	void routeShouldCountItsDecisionsInTheMetrics() {
		MeterRegistry meters = this.gateway.getBean(MeterRegistry.class);
		double allowed = count(meters, "metered", "allowed");
		double denied = count(meters, "metered", "denied");
		for (int i = 0; i < 3; i++) {
			Wire.get(this.port, "/metered/a");
		}
		assertThat(count(meters, "metered", "allowed")).isEqualTo(allowed + 2);
		assertThat(count(meters, "metered", "denied")).isEqualTo(denied + 1);
	}

	@Test
	void routeShouldRefuseAsTheServletFilterDoesWhenAFailClosedPolicyCannotReachRedis() {
		ConfigurableApplicationContext unreachable = start("spring.data.redis.host=127.0.0.1",
				"spring.data.redis.port=" + TestRedis.freePort(), "spring.data.redis.connect-timeout=500ms",
				"ratelimit.failure-mode=closed");
		int unreachablePort = port(unreachable);
		for (int i = 0; i < 2; i++) {
			Answer servlet = Wire.get(unreachablePort, "/paths/orders");
			Answer route = Wire.get(unreachablePort, "/route/orders");
			Wire.assertAlike(servlet, route, "route", "paths");
			assertThat(route.status()).isEqualTo(503);
			assertThat(route.body()).contains("temporary-reduced-capacity");
		}
	}

	@Test
	void routeNamingAPolicyThatIsNotConfiguredShouldStopStartUp() {
		assertThatThrownBy(() -> start("spring.data.redis.host=" + TestRedis.get().host(),
				"spring.data.redis.port=" + TestRedis.get().port(),
				"spring.cloud.gateway.server.webmvc.routes[0].id=typo",
				"spring.cloud.gateway.server.webmvc.routes[0].uri=http://127.0.0.1:1",
				"spring.cloud.gateway.server.webmvc.routes[0].predicates[0]=Path=/typo/**",
				"spring.cloud.gateway.server.webmvc.routes[0].filters[0]=RateLimit=paths,ordrs"))
			.isInstanceOf(InvalidRateLimitConfigurationException.class)
			.hasMessageContaining("'spring.cloud.gateway.server.webmvc.routes[0].filters[0]'")
			.hasMessageContaining("gateway route 'typo' names rate limit policy 'ordrs', which is not configured");
	}

	/**
	 * Sends three requests to a route whose policy admits two, each after one to the same limits applied by the
	 * servlet filter on another route: the route's answers must be the filter's, its admitted ones the upstream's.
	 */
	private void assertAdmitsTwoThenRefusesAsTheServletFilter(String filtered, String routed, String... names) {
		for (int i = 0; i < 3; i++) {
			Answer servlet = Wire.get(this.port, filtered);
			Answer route = Wire.get(this.port, routed);
			Wire.assertAlike(servlet, route, names);
			assertThat(route.status()).isEqualTo((i < 2) ? 200 : 429);
			if (i < 2) {
				assertThat(route.body()).isEqualTo(Upstream.BODY);
				assertThat(route.value("X-RateLimit-Remaining")).isEqualTo(Integer.toString(1 - i));
			}
		}
	}

	private static double count(MeterRegistry meters, String policy, String outcome) {
		var counter = meters.find("ratelimit.requests").tag("policy", policy).tag("outcome", outcome).counter();
		return (counter != null) ? counter.count() : 0;
	}

	/**
	 * Starts the gateway of {@code gateway-webmvc.yml} on a free port, its policies under a key prefix of their own;
	 * the properties given (as command-line arguments) win over the file's.
	 */
	private ConfigurableApplicationContext start(String... properties) {
		List<String> all = new ArrayList<>(List.of("spring.config.name=gateway-webmvc", "server.port=0",
				"upstream.uri=" + this.upstream.uri(),
				"ratelimit.key-prefix=gateway-webmvc-" + ProcessHandle.current().pid() + "-"
						+ PREFIXES.incrementAndGet()));
		all.addAll(List.of(properties));
		ConfigurableApplicationContext context = new SpringApplicationBuilder(GatewayMvcApplication.class)
			.run(all.stream().map((property) -> "--" + property).toArray(String[]::new));
		this.started.add(context);
		return context;
	}

	private static int port(ConfigurableApplicationContext context) {
		return context.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
	}

}
