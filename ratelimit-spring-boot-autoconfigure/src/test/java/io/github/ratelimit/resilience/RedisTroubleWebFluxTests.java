package io.github.ratelimit.resilience;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import io.github.ratelimit.spring.RateLimitCounters;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link AbstractRedisTroubleTests} on WebFlux (Reactor Netty, decisions through Lettuce's async API), under
 * BlockHound, and here alone scripts flushed under load: the decision that meets NOSCRIPT sends the script's source
 * from Lettuce's event loop, which only this JVM's BlockHound watches (the servlet stack runs the same code).
 */
class RedisTroubleWebFluxTests extends AbstractRedisTroubleTests {

	RedisTroubleWebFluxTests() {
		super("spring.main.web-application-type=reactive");
	}

	@Test
	void scriptFlushUnderLoadLosesNoDecision() throws Exception {
		RunningApp app = start("ratelimit.failure-mode=closed", "ratelimit.timeout=5s",
				"ratelimit.policies.hello.limits=50/1h", "ratelimit.policies.hello.paths=/hello");
		ExecutorService executor = Executors.newFixedThreadPool(4);
		try {
			List<Future<List<Integer>>> load = new ArrayList<>();
			for (int i = 0; i < 4; i++) {
				load.add(executor.submit(() -> statuses(app, 25)));
			}
			for (int i = 0; i < 10; i++) {
				redisCommand((connection) -> {
					connection.scriptingCommands().scriptFlush();
					return null;
				});
				Thread.sleep(5);
			}
			List<Integer> statuses = new ArrayList<>();
			for (Future<List<Integer>> result : load) {
				statuses.addAll(result.get());
			}
			assertThat(statuses).containsOnly(200, 429);
			assertThat(statuses.stream().filter((status) -> status == 200)).hasSize(50);
			assertThat(app.bean(RateLimitCounters.class).of("hello").failed()).isZero();
		}
		finally {
			executor.shutdownNow();
		}
	}

}
