package io.github.ratelimit.spring.web;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

import io.github.ratelimit.spring.PlanResolver;
import io.github.ratelimit.spring.RateLimitRequest;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * An application of policies with plans, {@code free} (10/1h, the default) and {@code pro} (100/1h), each keyed by
 * {@code X-Api-Key} and picked per request: {@code orders} by a customer table ({@code bean:customerPlans}),
 * {@code search} by an expression, {@code flaky} by a resolver that fails on keys starting {@code boom-} and names
 * a plan the policy lacks for keys starting {@code gold-}, {@code later} by a resolver that answers asynchronously,
 * later (and fails so on {@code boom-} keys). Every request is answered {@code ok}, on either web stack.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
class PlansTestApplication {

	/** The policies, for the properties of a server of this application. */
	static final String[] POLICIES = policies("orders", "bean:customerPlans", "search",
			"expr:#key.startsWith('pro-') ? 'pro' : 'free'", "flaky", "bean:flakyPlans", "later", "bean:laterPlans");

	private static String[] policies(String... namesAndStrategies) {
		String[] properties = new String[namesAndStrategies.length / 2 * 6];
		int i = 0;
		for (int p = 0; p < namesAndStrategies.length; p += 2) {
			String prefix = "ratelimit.policies." + namesAndStrategies[p] + ".";
			properties[i++] = prefix + "paths=/" + namesAndStrategies[p] + "/**";
			properties[i++] = prefix + "key=header:X-Api-Key";
			properties[i++] = prefix + "plan=" + namesAndStrategies[p + 1];
			properties[i++] = prefix + "default-plan=free";
			properties[i++] = prefix + "plans.free.limits=10/1h";
			properties[i++] = prefix + "plans.pro.limits=100/1h";
		}
		return properties;
	}

	@Bean
	CustomerPlans customerPlans() {
		return new CustomerPlans();
	}

	@Bean
	PlanResolver flakyPlans() {
		return (key, request) -> {
			if (key.startsWith("boom-")) {
				throw new IllegalStateException("The customer table is down");
			}
			return key.startsWith("gold-") ? "gold" : null;
		};
	}

	@Bean
	PlanResolver laterPlans() {
		return new PlanResolver() {

			@Override
			public String resolvePlan(String key, @Nullable RateLimitRequest request) {
				if (key.startsWith("boom-")) {
					throw new IllegalStateException("The customer service is down");
				}
				return key.startsWith("pro-") ? "pro" : "free";
			}

			@Override
			public CompletionStage<@Nullable String> resolvePlanAsync(String key, @Nullable RateLimitRequest request) {
				return Mono.delay(Duration.ofMillis(5)).map((ignored) -> resolvePlan(key, request)).toFuture();
			}

		};
	}

	@RestController
	static class OkController {

		@RequestMapping("/**")
		String ok() {
			return "ok";
		}

	}

	/**
	 * The plans of an application's customers, as a customer table would give them: a customer it does not list is
	 * on the default plan.
	 */
	static final class CustomerPlans implements PlanResolver {

		private final Map<String, String> plans = new ConcurrentHashMap<>();

		void put(String key, String plan) {
			this.plans.put(key, plan);
		}

		@Override
		public @Nullable String resolvePlan(String key, @Nullable RateLimitRequest request) {
			return this.plans.get(key);
		}

	}

}
