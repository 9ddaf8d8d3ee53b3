package io.github.ratelimit.sample;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Three instances of the sample on one Redis, one client's requests sent across them: together they admit exactly
 * the limit, as one server would. With the in-memory backend each instance admits the limit on its own. Periods are
 * long enough that no permit is refilled while a test runs.
 */
class MultiInstanceTests {

	private static final String KEY_PREFIX = "multi-instance-tests-" + UUID.randomUUID();

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
		assertThat(admissions.admitted()).isEqualTo(5);
		assertThat(admissions.refused()).isEqualTo(10);
	}

	@Test
	void ordersOfOneApiKeyRoundRobinAcrossThreeInstancesAdmitExactlyTheLimit() {
		Admissions admissions = roundRobin(sharingRedis, 30, "/api/orders", "X-Api-Key", "key-" + UUID.randomUUID());
		assertThat(admissions.admitted()).isEqualTo(10);
		assertThat(admissions.refused()).isEqualTo(20);
	}

	@Test
	void ordersOfOneApiKeyFromConcurrentThreadsAcrossThreeInstancesAdmitExactlyTheLimit() throws Exception {
		String apiKey = "key-" + UUID.randomUUID();
		List<Callable<Admissions>> clients = new ArrayList<>();
		for (int thread = 0; thread < 12; thread++) {
			RunningSample instance = sharingRedis.get(thread % sharingRedis.size());
			clients.add(() -> roundRobin(List.of(instance), 10, "/api/orders", "X-Api-Key", apiKey));
		}
		int admitted = 0;
		int refused = 0;
		ExecutorService executor = Executors.newFixedThreadPool(clients.size());
		try {
			for (Future<Admissions> result : executor.invokeAll(clients)) {
				admitted += result.get().admitted();
				refused += result.get().refused();
			}
		}
		finally {
			executor.shutdown();
		}
		assertThat(admitted).isEqualTo(10);
		assertThat(refused).isEqualTo(110);
	}

	@Test
	void inMemoryBackendAdmitsTheLimitOnEveryInstance() {
		List<RunningSample> inMemory = startThree("ratelimit.backend=in-memory");
		try {
			Admissions admissions = roundRobin(inMemory, 15, "/api/hello");
			assertThat(admissions.admitted()).isEqualTo(15);
			assertThat(admissions.refused()).isZero();
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
