package io.github.ratelimit.spring.annotation;

import java.util.UUID;

import io.github.ratelimit.test.ProblemBodies;
import io.github.ratelimit.test.TestRedisProperties;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.context.annotation.Import;
import org.springframework.http.HttpStatus;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.assertj.MockMvcTester;
import org.springframework.test.web.servlet.assertj.MvcTestResult;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link RateLimited} on Spring MVC controller methods naming a configured policy with plans, on Redis: the client's
 * plan decides, its cost applies unless the annotation gives one, and the headers and the problem body name the plan.
 */
@SpringBootTest(classes = RateLimitedPlansTests.OrdersApplication.class,
		properties = { "ratelimit.policies.orders.key=header:X-Api-Key",
				"ratelimit.policies.orders.plan=expr:#key.startsWith('pro-') ? 'pro' : 'free'",
				"ratelimit.policies.orders.default-plan=free", "ratelimit.policies.orders.plans.free.limits=10/1h",
				"ratelimit.policies.orders.plans.pro.limits=100/1h", "ratelimit.policies.orders.plans.pro.cost=2" })
@AutoConfigureMockMvc
class RateLimitedPlansTests {

	@DynamicPropertySource
	static void redisProperties(DynamicPropertyRegistry registry) {
		TestRedisProperties.register(registry);
	}

	@Autowired
	private MockMvcTester mvc;

	@Test
	void clientOnTheFreePlanShouldGetItsLimitAtItsCost() {
		String key = "free-" + UUID.randomUUID();
		for (int remaining = 9; remaining >= 0; remaining--) {
			assertAdmitted(get("/orders", key), "free", 10, remaining);
		}
		assertRefused(get("/orders", key), "free", 10);
	}

	@Test
	void clientOnTheProPlanShouldGetItsLimitAtItsCost() {
		String key = "pro-" + UUID.randomUUID();
		for (int remaining = 98; remaining >= 0; remaining -= 2) {
			assertAdmitted(get("/orders", key), "pro", 100, remaining);
		}
		assertRefused(get("/orders", key), "pro", 100);
	}

	@Test
	void annotationsCostShouldWinOverThePlansCost() {
		String pro = "pro-" + UUID.randomUUID();
		assertAdmitted(get("/orders/bulk", pro), "pro", 100, 95);
		assertAdmitted(get("/orders", pro), "pro", 100, 93);
		String free = "free-" + UUID.randomUUID();
		assertAdmitted(get("/orders/bulk", free), "free", 10, 5);
		assertAdmitted(get("/orders/bulk", free), "free", 10, 0);
		assertRefused(get("/orders", free), "free", 10);
	}

	private MvcTestResult get(String uri, String key) {
		return this.mvc.get().uri(uri).header("X-Api-Key", key).exchange();
	}

	private static void assertAdmitted(MvcTestResult result, String plan, long capacity, long remaining) {
		assertThat(result).hasStatusOk()
			.hasHeader("RateLimit-Policy", "\"orders-" + plan + "\";q=" + capacity + ";w=3600")
			.hasHeader("X-RateLimit-Remaining", Long.toString(remaining));
	}

	private static void assertRefused(MvcTestResult result, String plan, long capacity) {
		assertThat(result).hasStatus(HttpStatus.TOO_MANY_REQUESTS)
			.hasHeader("RateLimit-Policy", "\"orders-" + plan + "\";q=" + capacity + ";w=3600");
		assertThat(ProblemBodies.of(result)).containsEntry("policy", "orders").containsEntry("plan", plan);
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import(OrdersController.class)
	static class OrdersApplication {

	}

	@RestController
	static class OrdersController {

		@GetMapping("/orders")
		@RateLimited("orders")
		String orders() {
			return "ok";
		}

		@GetMapping("/orders/bulk")
		@RateLimited(name = "orders", cost = "5")
		String bulk() {
			return "ok";
		}

	}

}
