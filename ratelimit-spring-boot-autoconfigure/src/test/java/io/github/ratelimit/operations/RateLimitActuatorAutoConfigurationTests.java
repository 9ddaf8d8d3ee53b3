package io.github.ratelimit.operations;

import java.util.List;

import io.github.ratelimit.autoconfigure.RateLimitActuatorAutoConfiguration;
import io.github.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.ratelimit.autoconfigure.RateLimitRedisAutoConfiguration;
import io.github.ratelimit.core.StorageKeys;
import io.github.ratelimit.spring.PolicyDefinition;
import io.github.ratelimit.spring.RateLimitEnforcer;
import io.github.ratelimit.spring.RateLimitRegistry;
import io.github.ratelimit.spring.RateLimitRequest;
import io.github.ratelimit.spring.actuate.RateLimitsEndpoint;
import io.github.ratelimit.spring.actuate.RateLimiterHealthIndicator;
import io.github.ratelimit.spring.web.servlet.ServletRequests;
import io.github.ratelimit.test.TestRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.convert.ApplicationConversionService;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.core.convert.support.ConfigurableConversionService;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.security.web.FilterChainProxy;
import org.springframework.security.web.server.WebFilterChainProxy;

import static io.github.ratelimit.test.Decisions.enforce;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * When the health contributor and the endpoint exist, what health says when Redis answers and when it does not, and
 * when start-up warns that the endpoint's writes are open to anyone.
 */
@ExtendWith(OutputCaptureExtension.class)
class RateLimitActuatorAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(RateLimitRedisAutoConfiguration.class, RateLimitAutoConfiguration.class, RateLimitActuatorAutoConfiguration.class))
		.withPropertyValues("ratelimit.backend=in-memory", "ratelimit.policies.api.limits=3/1h",
				"management.endpoints.web.exposure.include=ratelimits");

	@Test
	void healthAndEndpointArePresentWithActuator() {
		this.runner.run((context) -> {
			assertThat(context).hasSingleBean(RateLimitsEndpoint.class);
			assertThat(context).hasBean("rateLimiterHealthIndicator");
			assertThat(context.getBean(RateLimiterHealthIndicator.class).health(true).getStatus())
				.isEqualTo(Status.UP);
		});
	}

	/** The runner with the conversions of a Spring Boot application's environment, which reads access case-blind. */
	private final ApplicationContextRunner accessRunner = this.runner.withInitializer((context) -> context
		.getEnvironment()
		.setConversionService((ConfigurableConversionService) ApplicationConversionService.getSharedInstance()));

	@Test
	void endpointWhoseWritesAreOpenOverHttpWithoutSpringSecurityShouldBeWarnedOf(CapturedOutput output) {
		this.accessRunner.withPropertyValues("management.endpoint.ratelimits.access=unrestricted").run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(warnings(output)).singleElement()
				.asString()
				.contains("ratelimits endpoint is exposed over HTTP with unrestricted access",
						"management.endpoint.ratelimits.access=read-only");
		});
	}

	@Test
	void endpointWithoutOpenWritesShouldNotBeWarnedOf(CapturedOutput output) {
		this.accessRunner.run((context) -> assertThat(context).hasNotFailed());
		this.accessRunner.withPropertyValues("management.endpoint.ratelimits.access=unrestricted",
				"management.endpoints.web.exposure.include=health")
			.run((context) -> assertThat(context).hasNotFailed());
		this.accessRunner.withPropertyValues("management.endpoint.ratelimits.access=unrestricted")
			.withBean("springSecurityFilterChain", FilterChainProxy.class, () -> new FilterChainProxy(List.of()))
			.run((context) -> assertThat(context).hasNotFailed());
		this.accessRunner.withPropertyValues("management.endpoint.ratelimits.access=unrestricted")
			.withBean(WebFilterChainProxy.class, () -> new WebFilterChainProxy(List.of()))
			.run((context) -> assertThat(context).hasNotFailed());
		assertThat(warnings(output)).isEmpty();
	}

	private static List<String> warnings(CapturedOutput output) {
		return output.getOut().lines().filter((line) -> line.contains("ratelimits endpoint")).toList();
	}

	@Test
	void withoutActuatorThereIsNoEndpointNorHealthButLimitingWorks() {
		this.runner.withClassLoader(new FilteredClassLoader(Endpoint.class, AbstractHealthIndicator.class))
			.run((context) -> {
				assertThat(context).doesNotHaveBean(RateLimitsEndpoint.class);
				assertThat(context).doesNotHaveBean(RateLimiterHealthIndicator.class);
				assertThat(context).hasSingleBean(RateLimitRegistry.class);
			});
	}

	@Test
	void healthIndicatorCanBeDisabled() {
		this.runner.withPropertyValues("management.health.ratelimiter.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(RateLimiterHealthIndicator.class));
	}

	@Test
	void endpointNamesAClientCountedByAddressByAnyOfItsAddresses() {
		this.runner
			.withPropertyValues("ratelimit.ip.ipv4-prefix-length=24", "ratelimit.policies.orders.limits=3/1h",
					"ratelimit.policies.orders.key=header:X-Api-Key")
			.run((context) -> {
				RateLimitRegistry registry = context.getBean(RateLimitRegistry.class);
				RateLimitEnforcer enforcer = context.getBean(RateLimitEnforcer.class);
				RateLimitsEndpoint endpoint = context.getBean(RateLimitsEndpoint.class);
				PolicyDefinition api = registry.find("api").orElseThrow();
				PolicyDefinition orders = registry.find("orders").orElseThrow();
				// what the filter charges a request from 2001:db8:1:2::7 (ip) and from 198.51.100.7 (ip: fallback)
				enforce(enforcer, api, key(api, "2001:db8:1:2::7"), 1);
				enforce(enforcer, orders, key(orders, "198.51.100.7"), 1);

				assertThat(endpoint.client("api", "2001:db8:1:2::99").key()).isEqualTo("2001:db8:1:2::/64");
				assertThat(endpoint.client("api", "2001:db8:1:2::99").remaining()).isEqualTo(2);
				assertThat(endpoint.client("orders", "ip:198.51.100.200").key()).isEqualTo("ip:198.51.100.0/24");
				assertThat(endpoint.client("orders", "ip:198.51.100.200").remaining()).isEqualTo(2);
				// a key that is no address is a key as sent, shown hashed as the header's keys are
				assertThat(endpoint.client("orders", "198.51.100.200").key())
					.isEqualTo(StorageKeys.hashed("198.51.100.200"));

				assertThat(endpoint.reset("api", "2001:db8:1:2::1").remaining()).isEqualTo(3);
				assertThat(endpoint.reset("orders", "ip:198.51.100.1").remaining()).isEqualTo(3);
				assertThat(enforce(enforcer, api, key(api, "2001:db8:1:2::7"), 1).decision().remaining())
					.isEqualTo(2);
			});
	}

	/**
	 * The in-memory backend keeps this instance's overrides, applied by its enforcer; one more than
	 * {@code ratelimit.overrides.maximum} is refused with 409, naming the property.
	 */
	@Test
	void inMemoryOverridesAreAppliedAndTheirMaximumIsAConflict() {
		this.runner.withPropertyValues("ratelimit.overrides.maximum=1").run((context) -> {
			RateLimitsEndpoint endpoint = context.getBean(RateLimitsEndpoint.class);
			WebEndpointResponse<Object> set = endpoint.setOverride("api", new String[] { "a", "override" },
					List.of("7/1h"), null, SecurityContext.NONE);
			assertThat(set.getStatus()).isEqualTo(200);
			assertThat(endpoint.client("api", "a").capacity()).isEqualTo(7);
			PolicyDefinition api = context.getBean(RateLimitRegistry.class).find("api").orElseThrow();
			assertThat(enforce(context.getBean(RateLimitEnforcer.class), api, "a", 1).decision().limit().capacity())
				.isEqualTo(7);
			WebEndpointResponse<Object> another = endpoint.setOverride("api", new String[] { "b", "override" },
					List.of("7/1h"), null, SecurityContext.NONE);
			assertThat(another.getStatus()).isEqualTo(409);
			assertThat(another.getBody().toString()).contains("ratelimit.overrides.maximum");
		});
	}

	@Test
	void endpointCanBeSwitchedOff() {
		this.runner.withPropertyValues("management.endpoint.ratelimits.access=NONE")
			.run((context) -> assertThat(context).doesNotHaveBean(RateLimitsEndpoint.class));
	}

	@Test
	void healthIsDownWithDetailsWhileRedisDoesNotAnswer() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RateLimitRedisAutoConfiguration.class,
					RateLimitAutoConfiguration.class, RateLimitActuatorAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.port=" + TestRedis.freePort(), "spring.data.redis.timeout=500ms",
					"ratelimit.failure-mode=closed")
			.run((context) -> {
				Health health = context.getBean(RateLimiterHealthIndicator.class).health(true);
				assertThat(health.getStatus()).isEqualTo(Status.DOWN);
				assertThat(health.getDetails()).containsEntry("backend", "redis")
					.containsEntry("failureMode", "closed")
					.containsKey("error");
			});
	}

	@Test
	void healthIsUpWhileRedisAnswers() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RateLimitRedisAutoConfiguration.class,
					RateLimitAutoConfiguration.class, RateLimitActuatorAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + TestRedis.get().host(),
					"spring.data.redis.port=" + TestRedis.get().port())
			.run((context) -> assertThat(context.getBean(RateLimiterHealthIndicator.class).health(true).getStatus())
				.isEqualTo(Status.UP));
	}

	private static String key(PolicyDefinition policy, String remoteAddress) {
		return policy.keyOfAsync(request(remoteAddress)).toCompletableFuture().join();
	}

	private static RateLimitRequest request(String remoteAddress) {
		MockHttpServletRequest request = new MockHttpServletRequest();
		request.setRemoteAddr(remoteAddress);
		return ServletRequests.of(request);
	}

}
