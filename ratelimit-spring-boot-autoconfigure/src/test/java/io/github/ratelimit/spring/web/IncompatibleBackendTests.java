package io.github.ratelimit.spring.web;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.Policy;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.core.RateLimiterBackend;
import io.github.ratelimit.core.memory.InMemoryRateLimiterBackend;
import io.github.ratelimit.core.resilience.CircuitBreaker;
import io.github.ratelimit.spring.FailureMode;
import io.github.ratelimit.spring.PolicyDefinition;
import io.github.ratelimit.spring.RateLimitEnforcer;
import io.github.ratelimit.spring.RateLimitOutcome;
import io.github.ratelimit.spring.web.servlet.RateLimitFilter;
import io.github.ratelimit.test.LettuceLibrary;
import io.github.ratelimit.test.ProblemBodies;
import io.github.ratelimit.test.RateLimitHeaderNames;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.mock.web.MockFilterChain;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A backend whose client library is not the version it was built against (every call a {@link NoSuchMethodError},
 * as Lettuce 7 gives code built on Lettuce 6.8) fails like a backend that is down, never with a 500: each policy's
 * failure mode answers through the filter, the circuit breaker counts the errors and opens, and one ERROR names the
 * library, however many requests meet it; on the asynchronous path too, where the client throws before returning a
 * future.
 */
@ExtendWith(OutputCaptureExtension.class)
class IncompatibleBackendTests {

	private static final String CANNOT_DECIDE = "Rate limit backend 'incompatible' cannot decide: ";

	private final IncompatibleBackend backend = new IncompatibleBackend();

	/** Stands still: the open breaker stays open, and the local limiter's waits are exact. */
	private final CircuitBreaker breaker = new CircuitBreaker(50, Duration.ofSeconds(1), 10, Duration.ofSeconds(1),
			() -> 1_000_000_000L);

	private final RateLimitEnforcer enforcer = new RateLimitEnforcer(List.of(), this.backend, this.breaker, null, 1,
			new InMemoryRateLimiterBackend(Clock.fixed(Instant.parse("2026-12-01T12:00:00Z"), ZoneOffset.UTC),
					"fallback"));

	private final PolicyDefinition open = policy("open", FailureMode.OPEN);

	private final PolicyDefinition closed = policy("closed", FailureMode.CLOSED);

	private final PolicyDefinition local = policy("local", FailureMode.LOCAL);

	private final RateLimitFilter filter = new RateLimitFilter(List.of(this.open, this.closed, this.local),
			this.enforcer, new RateLimitHeaders(true, true));

	@Test
	void eachPolicyGetsItsFailureModeTheBreakerOpensAndOneErrorNamesTheLibrary(CapturedOutput output)
			throws Exception {
		List<MockHttpServletResponse> opened = get("/open", 4);
		List<MockHttpServletResponse> refused = get("/closed", 4);
		List<MockHttpServletResponse> local = get("/local", 4);

		assertThat(opened).extracting(MockHttpServletResponse::getStatus).containsExactly(200, 200, 200, 200);
		assertThat(refused).extracting(MockHttpServletResponse::getStatus).containsExactly(503, 503, 503, 503);
		assertThat(local).extracting(MockHttpServletResponse::getStatus).containsExactly(200, 200, 429, 429);
		for (MockHttpServletResponse response : refused) {
			assertThat(response.getHeader("Retry-After")).isEqualTo("1");
			assertThat(response.getContentType()).isEqualTo("application/problem+json");
			assertThat(ProblemBodies.of(response.getContentAsByteArray())).containsEntry("status", 503)
				.containsEntry("type", "https://iana.org/assignments/http-problem-types#temporary-reduced-capacity")
				.containsEntry("policy", "closed")
				.containsEntry("violated-policies", List.of("closed"));
		}
		for (MockHttpServletResponse response : local.subList(2, 4)) {
			// the local limiter's 2/1h, on a clock that stands still: the next permit in exactly half an hour
			assertThat(response.getHeader("Retry-After")).isEqualTo("1800");
			assertThat(ProblemBodies.of(response.getContentAsByteArray())).containsEntry("status", 429)
				.containsEntry("policy", "local");
		}
		List<MockHttpServletResponse> all = new ArrayList<>(opened);
		all.addAll(refused);
		all.addAll(local);
		for (MockHttpServletResponse response : all) {
			for (String header : RateLimitHeaderNames.ALL) {
				assertThat(response.getHeader(header)).as("%s, %s", header, response.getStatus()).isNull();
			}
		}

		assertThat(this.breaker.isOpen()).isTrue();
		assertThat(this.backend.calls).as("the open breaker skips the backend").hasValue(10);
		String[] errors = output.getOut().lines().filter((line) -> line.contains(" ERROR ")).toArray(String[]::new);
		assertThat(errors).singleElement().asString()
			.contains(CANNOT_DECIDE + LettuceLibrary.described() + " is not compatible with this version of the rate "
					+ "limit starter: java.lang.NoSuchMethodError: " + LettuceLibrary.REMOVED_METHOD + ", called from "
					+ IncompatibleBackend.class.getName() + ".client")
			.endsWith("(logged once; further failures at debug level)");
	}

	@Test
	void theAsynchronousPathGivesTheSameFailureModes(CapturedOutput output) {
		assertThat(List.of(this.open, this.closed, this.local, this.local, this.local))
			.extracting((policy) -> this.enforcer.enforceAsync(policy, policy.defaultPlan(), "client", 1).toCompletableFuture().join().kind())
			.containsExactly(RateLimitOutcome.Kind.FAILED_OPEN, RateLimitOutcome.Kind.FAILED_CLOSED,
					RateLimitOutcome.Kind.FALLBACK, RateLimitOutcome.Kind.FALLBACK, RateLimitOutcome.Kind.FALLBACK);
		assertThat(output.getOut().split(CANNOT_DECIDE, -1)).hasSize(2);
	}

	private List<MockHttpServletResponse> get(String path, int times) throws Exception {
		List<MockHttpServletResponse> responses = new ArrayList<>();
		for (int i = 0; i < times; i++) {
			MockHttpServletResponse response = new MockHttpServletResponse();
			this.filter.doFilter(new MockHttpServletRequest("GET", path), response, new MockFilterChain());
			responses.add(response);
		}
		return responses;
	}

	private PolicyDefinition policy(String name, FailureMode failureMode) {
		Policy policy = Policy.of(name, Algorithm.TOKEN_BUCKET, "2/1h");
		return PolicyDefinition.of(policy, this.backend.create(policy), "global", (request) -> "client",
				List.of("/" + name), List.of(), Set.of(), 1, failureMode,
				false);
	}

	/**
	 * Limiters whose every call meets a method the client library lacks, thrown on the caller's thread on both paths
	 * (as Lettuce's commands fail before a future exists).
	 */
	static final class IncompatibleBackend implements RateLimiterBackend {

		final AtomicInteger calls = new AtomicInteger();

		@Override
		public RateLimiter create(Policy policy) {
			return new RateLimiter() {

				@Override
				public Policy policy() {
					return policy;
				}

				@Override
				public Decision tryAcquire(String key, long permits) {
					return client();
				}

				@Override
				public CompletionStage<Decision> tryAcquireAsync(String key, long permits) {
					return client();
				}

				@Override
				public Decision peek(String key) {
					return client();
				}

				@Override
				public void reset(String key) {
					client();
				}

			};
		}

		private <T> T client() {
			this.calls.incrementAndGet();
			throw new NoSuchMethodError(LettuceLibrary.REMOVED_METHOD);
		}

		@Override
		public String name() {
			return "incompatible";
		}

	}

}
