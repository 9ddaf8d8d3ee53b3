package io.github.ratelimit.sample.webflux;

import java.util.List;
import java.util.UUID;
import java.util.function.Consumer;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;

/**
 * {@code /api/orders} on plans: API keys starting with {@code pro-} get the {@code pro} plan's 100 requests, every
 * other key, and a request without one, the {@code free} plan's 10; the headers and the problem name the plan. The
 * shipped capacities are kept, with periods long enough that no permit is refilled while a test runs; the per-IP
 * policy beside it is moved out of the way, since every request comes from the same address.
 */
class OrderPlansTests {

	private static RunningSample sample;

	@BeforeAll
	static void start() {
		sample = RunningSample.start("ratelimit.key-prefix=order-plans-webflux-tests-" + UUID.randomUUID(),
				"ratelimit.policies.orders.plans.free.limits=10/1h", "ratelimit.policies.orders.plans.pro.limits=100/1h",
				"ratelimit.policies.orders-ip.limits=10000/1h");
	}

	@AfterAll
	static void stop() {
		sample.close();
	}

	@Test
	void proKeyGetsOneHundredOrdersAnHourThenIsRefusedOnThePlan() {
		admitThenRefuse("pro", 100, withApiKey("pro-" + UUID.randomUUID()));
	}

	@Test
	void otherKeyGetsTenOrdersAnHourOnTheFreePlan() {
		admitThenRefuse("free", 10, withApiKey("key-" + UUID.randomUUID()));
	}

	@Test
	void keyThatOnlyContainsProIsOnTheFreePlan() {
		admitThenRefuse("free", 10, withApiKey("my-pro-" + UUID.randomUUID()));
	}

	@Test
	void requestWithoutKeyIsCountedByAddressOnTheFreePlan() {
		admitThenRefuse("free", 10, (headers) -> {
		});
	}

	private static Consumer<HttpHeaders> withApiKey(String apiKey) {
		return (headers) -> headers.add("X-Api-Key", apiKey);
	}

	private static void admitThenRefuse(String plan, int capacity, Consumer<HttpHeaders> headers) {
		String item = "\"orders-" + plan + "\"";
		for (int remaining = capacity - 1; remaining >= 0; remaining--) {
			sample.client().get().uri("/api/orders").headers(headers).exchange()
				.expectStatus().isOk()
				.expectHeader().valueEquals("RateLimit-Policy", item + ";q=" + capacity + ";w=3600")
				.expectHeader().valueMatches("RateLimit", item + ";r=" + remaining + ";t=[0-9]+")
				.expectHeader().valueEquals("X-RateLimit-Limit", Integer.toString(capacity))
				.expectHeader().valueEquals("X-RateLimit-Remaining", Integer.toString(remaining));
		}
		sample.client().get().uri("/api/orders").headers(headers).exchange()
			.expectStatus().isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
			.expectHeader().valueEquals("RateLimit-Policy", item + ";q=" + capacity + ";w=3600")
			.expectBody()
			.jsonPath("$.policy").isEqualTo("orders")
			.jsonPath("$.plan").isEqualTo(plan)
			.jsonPath("$['violated-policies']").isEqualTo(List.of("orders-" + plan));
	}

}
