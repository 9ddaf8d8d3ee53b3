package io.github.ratelimit.sample.webflux;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Three instances of the WebFlux sample on one Redis, one client's requests sent round-robin across them (as
 * {@code demo.sh --webflux} does): together they admit exactly the limit, as one server would. With the in-memory
 * backend each instance admits the limit on its own. Periods are long enough that no permit is refilled while a test
 * runs.
 */
class MultiInstanceTests {

	private static final String KEY_PREFIX = "multi-instance-webflux-tests-" + UUID.randomUUID();

	/** Every request comes from one address: the per-IP limit of /api/orders must not bind before the API key's. */
	private static final String ORDERS_IP_OUT_OF_THE_WAY = "ratelimit.policies.orders-ip.limits=10000/1h";

	private static final List<RunningSample> sharingRedis = new ArrayList<>();

	@BeforeAll
	static void startThreeInstancesOnOneRedis() {
		sharingRedis.addAll(startThree("ratelimit.backend=redis"));
	}

	@AfterAll
	static void closeInstances() {
		sharingRedis.forEach(RunningSample::close);
	}

	@Test
	void helloRoundRobinAcrossThreeInstancesAdmitsExactlyTheLimit() {
		Admissions admissions = roundRobin(sharingRedis, 15, "/api/hello");
		assertThat(admissions).isEqualTo(new Admissions(5, 10));
	}

	@Test
	void ordersOfOneApiKeyRoundRobinAcrossThreeInstancesAdmitExactlyTheLimit() {
		Admissions admissions = roundRobin(sharingRedis, 30, "/api/orders", "X-Api-Key", "key-" + UUID.randomUUID());
		assertThat(admissions).isEqualTo(new Admissions(10, 20));
	}

	@Test
	void inMemoryBackendAdmitsTheLimitOnEveryInstance() {
		List<RunningSample> inMemory = startThree("ratelimit.backend=in-memory");
		try {
			assertThat(roundRobin(inMemory, 15, "/api/hello")).isEqualTo(new Admissions(15, 0));
		}
		finally {
			inMemory.forEach(RunningSample::close);
		}
	}

	private static List<RunningSample> startThree(String backend) {
		List<RunningSample> instances = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			instances.add(RunningSample.start("ratelimit.key-prefix=" + KEY_PREFIX, backend,
					"ratelimit.policies.hello.limits=5/1h", "ratelimit.policies.orders.plans.free.limits=10/1h",
					ORDERS_IP_OUT_OF_THE_WAY));
		}
		return instances;
	}

	private static Admissions roundRobin(List<RunningSample> instances, int requests, String path, String... headers) {
		int admitted = 0;
		int refused = 0;
		for (int i = 0; i < requests; i++) {
			HttpStatusCode status = instances.get(i % instances.size()).get(path, headers);
			if (status.is2xxSuccessful()) {
				admitted++;
			}
			else {
				assertThat(status).isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
				refused++;
			}
		}
		return new Admissions(admitted, refused);
	}

	private record Admissions(int admitted, int refused) {
	}

}
