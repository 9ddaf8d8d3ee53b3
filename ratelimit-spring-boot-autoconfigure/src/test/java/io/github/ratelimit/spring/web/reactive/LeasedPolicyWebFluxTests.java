package io.github.ratelimit.spring.web.reactive;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

import io.github.ratelimit.spring.PolicyLeases;
import io.github.ratelimit.spring.RateLimitOutcome;
import io.github.ratelimit.spring.RateLimitRecorder;
import io.github.ratelimit.spring.annotation.RateLimited;
import io.github.ratelimit.test.OwnReactorResources;
import io.github.ratelimit.test.RunningServer;
import io.github.ratelimit.test.WireResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestInstance.Lifecycle;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.publisher.Mono;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A leased policy on WebFlux, under BlockHound: the reactive filter and a reactive {@code @RateLimited} method decide
 * from the lease in hand on the event loop, without blocking it, renew through Lettuce's async API, and admit exactly
 * the limit from one server (one for both policies, each with its own state and leases).
 */
@TestInstance(Lifecycle.PER_CLASS)
class LeasedPolicyWebFluxTests {

	private static final int LIMIT = 100;

	private RunningServer server;

	/**
	 * Starts one server for both policies, each with state and leases of its own.
	 */
	@BeforeAll
	void startServer() {
		List<String> properties = new ArrayList<>(List.of("ratelimit.key-prefix=leased-" + UUID.randomUUID(),
				"ratelimit.policies.filtered.paths=/filtered"));
		for (String name : List.of("filtered", "annotated")) {
			String prefix = "ratelimit.policies." + name + ".";
			properties.addAll(List.of(prefix + "limits=" + LIMIT + "/1d", prefix + "lease.enabled=true",
					prefix + "lease.batch=10", prefix + "lease.adaptive=false", prefix + "lease.max-age=1h"));
		}
		this.server = RunningServer.start(WebApplicationType.REACTIVE,
				new Class<?>[] { App.class, OwnReactorResources.class }, properties.toArray(String[]::new));
	}

	@AfterAll
	void stopServer() {
		this.server.close();
	}

	@ParameterizedTest
	@ValueSource(strings = { "/filtered", "/annotated" })
	void aLeasedPolicyShouldDecideLocallyOnTheEventLoopWithoutBlocking(String path) {
		String policy = path.substring(1);
		int admitted = 0;
		for (int i = 0; i < LIMIT + 20; i++) {
			WireResponse response = WireResponse.get(this.server.port(), path);
			assertThat(response.status()).as("status of %s", response).isIn(200, 429);
			admitted += (response.status() == 200) ? 1 : 0;
		}
		assertThat(admitted).isEqualTo(LIMIT);
		PolicyLeases.PolicyLease lease = this.server.bean(PolicyLeases.class).find(policy);
		assertThat(lease).isNotNull();
		assertThat(lease.renewals()).as("leases of 10, then refusals the deny cache remembers").isBetween(10L, 20L);
		assertThat(lease.leaseHits())
			.as("every admission but those a grant answered: one per lease of 10, fewer as leases renew ahead")
			.isBetween(LIMIT - 10L, LIMIT - 1L);
		Set<String> threads = this.server.bean(LocalDecisionThreads.class).of(policy);
		// Reactor Netty's server event loops (such as webflux-http-epoll-1), not Lettuce's
		assertThat(threads).isNotEmpty().allSatisfy((name) -> assertThat(name).contains("-http-"));
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@RestController
	static class App {

		@RequestMapping("/filtered")
		Mono<String> filtered() {
			return Mono.just("ok");
		}

		@RateLimited("annotated")
		@RequestMapping("/annotated")
		public Mono<String> annotated() {
			return Mono.just("annotated");
		}

		@Bean
		LocalDecisionThreads localDecisionThreads() {
			return new LocalDecisionThreads();
		}

	}

	/**
	 * The threads allowed requests were decided on without a backend call, by policy.
	 */
	static class LocalDecisionThreads implements RateLimitRecorder {

		private final Map<String, Set<String>> names = new ConcurrentHashMap<>();

		@Override
		public void record(RateLimitOutcome outcome, long backendNanos) {
			if (backendNanos < 0 && outcome.kind() == RateLimitOutcome.Kind.ALLOWED) {
				this.names.computeIfAbsent(outcome.policy().name(), (policy) -> ConcurrentHashMap.newKeySet())
					.add(Thread.currentThread().getName());
			}
		}

		Set<String> of(String policy) {
			return this.names.getOrDefault(policy, Set.of());
		}

	}

}
