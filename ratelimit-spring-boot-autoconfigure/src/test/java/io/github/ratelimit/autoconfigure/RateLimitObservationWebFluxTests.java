package io.github.ratelimit.autoconfigure;

import java.time.Duration;
import java.util.function.Predicate;

import io.github.ratelimit.spring.annotation.RateLimited;
import io.github.ratelimit.test.DecisionObservations;
import io.github.ratelimit.test.OwnReactorResources;
import io.github.ratelimit.test.RunningServer;
import io.github.ratelimit.test.TestRedisProperties;
import io.github.ratelimit.test.WireResponse;
import io.micrometer.observation.Observation;
import io.micrometer.observation.contextpropagation.ObservationThreadLocalAccessor;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.util.context.Context;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.observation.LettuceObservationAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * On WebFlux the request's observation travels in the Reactor context, not in a thread local: the WebFlux filter and
 * reactive {@code @RateLimited} methods make it their decision's parent, and the decision stays the parent of its
 * Redis command (run with BlockHound installed, so none of it blocks an event loop).
 */
class RateLimitObservationWebFluxTests {

	private static final Duration WAIT = Duration.ofSeconds(30);

	private final ReactiveWebApplicationContextRunner contextRunner = new ReactiveWebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ObservationAutoConfiguration.class,
				LettuceObservationAutoConfiguration.class, DataRedisAutoConfiguration.class, AopAutoConfiguration.class,
				RateLimitRedisAutoConfiguration.class, RateLimitAutoConfiguration.class,
				RateLimitReactiveAutoConfiguration.class, RateLimitAspectAutoConfiguration.class))
		.withBean(TestObservationRegistry.class, TestObservationRegistry::create)
		.withUserConfiguration(ObservedService.class)
		.withPropertyValues(TestRedisProperties.values())
		.withPropertyValues("ratelimit.policies.finds.limits=5/1m", "ratelimit.observations.enabled=true");

	@Test
	void webFilterDecidesAsChildOfTheServerRequestObservation() {
		try (RunningServer server = RunningServer.start(WebApplicationType.REACTIVE,
				new Class<?>[] { ObservedApplication.class, OwnReactorResources.class },
				"ratelimit.key-prefix=" + TestRedisProperties.uniquePrefix(), "ratelimit.policies.orders.limits=5/1m",
				"ratelimit.policies.orders.paths=/orders/**", "ratelimit.observations.enabled=true")) {
			TestObservationRegistry observations = server.bean(TestObservationRegistry.class);
			observations.clear();
			WireResponse response = WireResponse.get(server.port(), "/orders/1");
			assertThat(response.status()).as(response.toString()).isEqualTo(200);
			assertDecidedAsChildOf(observations, "http.server.requests", "orders");
		}
	}

	@Test
	void reactiveRateLimitedMethodDecidesAsChildOfTheObservationInTheReactorContext() {
		this.contextRunner.run((context) -> {
			TestObservationRegistry observations = context.getBean(TestObservationRegistry.class);
			ObservedService service = context.getBean(ObservedService.class);
			observations.clear();
			Observation caller = Observation.start("caller", observations);
			assertThat(service.find().contextWrite(Context.of(ObservationThreadLocalAccessor.KEY, caller)).block(WAIT))
				.isEqualTo("found");
			caller.stop();
			assertDecidedAsChildOf(observations, "caller", "finds");
		});
	}

	@Test
	void everyPolicyOfAReactiveRateLimitedMethodDecidesAsChildOfTheObservationInTheReactorContext() {
		this.contextRunner.run((context) -> {
			TestObservationRegistry observations = context.getBean(TestObservationRegistry.class);
			ObservedService service = context.getBean(ObservedService.class);
			observations.clear();
			Observation caller = Observation.start("caller", observations);
			assertThat(service.findAll().contextWrite(Context.of(ObservationThreadLocalAccessor.KEY, caller))
				.block(WAIT)).isEqualTo("found all");
			caller.stop();
			// the second policy is decided once Redis answered the first, on the thread that answered
			Predicate<Observation.ContextView> underCaller = (parent) -> "caller".equals(parent.getName());
			TestObservationRegistryAssert.assertThat(observations)
				.hasNumberOfObservationsWithNameEqualTo("ratelimit.decision", 2)
				.forAllObservationsWithNameEqualTo("ratelimit.decision",
						(decision) -> decision.hasParentObservationContextMatching(underCaller));
		});
	}

	/**
	 * Asserts that the decision's parent is the observation of that name, and the one Redis command with a parent is
	 * the decision's.
	 */
	private static void assertDecidedAsChildOf(TestObservationRegistry observations, String parent,
			String policy) {
		TestObservationRegistryAssert.assertThat(observations)
			.hasObservationWithNameEqualTo("ratelimit.decision")
			.that()
			.hasParentObservationContextMatching((decisionParent) -> parent.equals(decisionParent.getName()))
			.hasLowCardinalityKeyValue("policy", policy)
			.hasLowCardinalityKeyValue("outcome", "allowed");
		DecisionObservations.assertRedisCommandIsChildOfDecision(observations);
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import(ObservedService.class)
	static class ObservedApplication {

		@Bean
		TestObservationRegistry testObservationRegistry() {
			return TestObservationRegistry.create();
		}

		@RestController
		static class OrdersController {

			@GetMapping("/orders/{id}")
			Mono<String> order(@PathVariable String id) {
				return Mono.just("order " + id);
			}

		}

	}

	static class ObservedService {

		@RateLimited(name = "finds", limits = "5/1m")
		Mono<String> find() {
			return Mono.just("found");
		}

		@RateLimited(name = "finds", limits = "5/1m")
		@RateLimited(name = "finds-daily", limits = "50/1d")
		Mono<String> findAll() {
			return Mono.just("found all");
		}

	}

}
