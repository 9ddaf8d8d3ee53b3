package io.github.ratelimit.spring.web.reactive;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;

import io.github.ratelimit.core.Limit;
import io.github.ratelimit.redis.RedisTime;
import io.github.ratelimit.test.Hammer;
import io.github.ratelimit.test.OwnReactorResources;
import io.github.ratelimit.test.RunningServer;
import io.github.ratelimit.test.StartedWindow;
import io.github.ratelimit.test.WireResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;
import reactor.core.publisher.Mono;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Three WebFlux servers (each its own application context, enforcer, connection factory and Netty server) on one
 * Redis, under concurrent load from one client (one IP address) whose requests are spread across them: together they
 * admit exactly the limit, for every algorithm and for a multi-limit policy, as one server would. With the in-memory
 * backend each server admits the limit on its own, three times the limit in all: the race a shared Redis prevents.
 * Periods are long enough that no permit is refilled while a test runs, and windowed algorithms' windows began when
 * the servers started and last an hour more.
 */
class ThreeWebFluxInstancesTests {

	private static final int SERVERS = 3;

	private static final int THREADS_PER_SERVER = 8;

	private static final int REQUESTS_PER_THREAD = 25;

	private static final int REQUESTS = SERVERS * THREADS_PER_SERVER * REQUESTS_PER_THREAD;

	private static final int LIMIT = 50;

	private static final List<String> ALGORITHMS = List.of("token-bucket", "gcra", "fixed-window", "sliding-window",
			"sliding-log");

	private static final List<RunningServer> sharingRedis = new ArrayList<>();

	@BeforeAll
	static void startThreeServersOnOneRedis() {
		sharingRedis.addAll(startThree("redis"));
		assertThat(sharingRedis).extracting(RunningServer::webServer).containsOnly("NettyWebServer");
	}

	@AfterAll
	static void stopServers() {
		sharingRedis.forEach(RunningServer::close);
	}

	@ParameterizedTest
	@FieldSource("ALGORITHMS")
	void threeServersOnOneRedisShouldAdmitExactlyTheLimit(String algorithm) throws Exception {
		Admissions admissions = load(sharingRedis, "/" + algorithm);
		assertThat(admissions.admitted()).as("admitted by %s", admissions).isEqualTo(LIMIT);
		assertThat(admissions.refused()).isEqualTo(REQUESTS - LIMIT);
	}

	@Test
	void threeServersOnOneRedisShouldAdmitExactlyTheBindingLimitOfAMultiLimitPolicy() throws Exception {
		Admissions admissions = load(sharingRedis, "/multi");
		assertThat(admissions.admitted()).as("admitted by %s", admissions).isEqualTo(LIMIT);
		assertThat(admissions.refused()).isEqualTo(REQUESTS - LIMIT);
	}

	@Test
	void threeServersInMemoryShouldEachAdmitTheLimit() throws Exception {
		List<RunningServer> inMemory = startThree("in-memory");
		try {
			Admissions admissions = load(inMemory, "/token-bucket");
			assertThat(admissions.admittedByServer()).as("admitted by %s", admissions)
				.containsExactly(LIMIT, LIMIT, LIMIT);
			assertThat(admissions.admitted()).isEqualTo(SERVERS * LIMIT);
			assertThat(admissions.refused()).isEqualTo(REQUESTS - SERVERS * LIMIT);
		}
		finally {
			inMemory.forEach(RunningServer::close);
		}
	}

	private static List<RunningServer> startThree(String backend) {
		String keyPrefix = "three-webflux-instances-" + UUID.randomUUID();
		Limit window = StartedWindow.begunAt(RedisTime.testRedisMicros(), LIMIT + "/1h");
		List<String> properties = new ArrayList<>(List.of("ratelimit.backend=" + backend,
				"ratelimit.key-prefix=" + keyPrefix, "ratelimit.policies.multi.paths=/multi",
				"ratelimit.policies.multi.limits=100/1h," + LIMIT + "/1d"));
		for (String algorithm : ALGORITHMS) {
			properties.add("ratelimit.policies." + algorithm + ".paths=/" + algorithm);
			properties.add("ratelimit.policies." + algorithm + ".algorithm=" + algorithm);
			properties.add("ratelimit.policies." + algorithm + ".limits="
					+ (algorithm.endsWith("-window") ? window.toString() : LIMIT + "/1d"));
		}
		List<RunningServer> servers = new ArrayList<>();
		for (int i = 0; i < SERVERS; i++) {
			servers.add(RunningServer.start(WebApplicationType.REACTIVE, new Class<?>[] { App.class, OwnReactorResources.class },
					properties.toArray(String[]::new)));
		}
		return servers;
	}

	/**
	 * Sends one client's requests from {@code SERVERS x THREADS_PER_SERVER} threads at once, each request to the
	 * next server in turn on a connection of its own, and counts every answer: 200 or 429, nothing else. (Reactor
	 * Netty 1.3.6 may stop reading a keep-alive connection whose next request arrives before the previous exchange
	 * has terminated, reactor/reactor-netty#4361, a stall that has nothing to do with rate limiting.)
	 */
	private static Admissions load(List<RunningServer> servers, String path) throws Exception {
		AtomicInteger next = new AtomicInteger();
		AtomicIntegerArray admittedByServer = new AtomicIntegerArray(servers.size());
		int admitted = Hammer.admitted(SERVERS, THREADS_PER_SERVER, REQUESTS_PER_THREAD, (ignored) -> {
			int server = next.getAndIncrement() % servers.size();
			WireResponse response = WireResponse.get(servers.get(server).port(), path);
			assertThat(response.status()).as("status of %s", response).isIn(200, 429);
			if (response.status() == 200) {
				admittedByServer.incrementAndGet(server);
				return true;
			}
			return false;
		});
		assertThat(next.get()).isEqualTo(REQUESTS);
		List<Integer> byServer = new ArrayList<>();
		for (int i = 0; i < servers.size(); i++) {
			byServer.add(admittedByServer.get(i));
		}
		return new Admissions(admitted, REQUESTS - admitted, byServer);
	}

	private record Admissions(int admitted, int refused, List<Integer> admittedByServer) {
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@RestController
	static class App {

		@RequestMapping("/**")
		Mono<String> ok() {
			return Mono.just("ok");
		}

	}

}
