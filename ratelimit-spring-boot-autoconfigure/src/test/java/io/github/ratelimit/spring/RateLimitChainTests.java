package io.github.ratelimit.spring;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.RejectedExecutionException;

import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.core.Policy;
import io.github.ratelimit.core.resilience.CircuitBreaker;
import io.github.ratelimit.core.resilience.DenyCache;
import io.github.ratelimit.spring.web.servlet.ServletRequests;
import org.junit.jupiter.api.Test;

import org.springframework.mock.web.MockHttpServletRequest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The one per-request chain, as every adapter runs it: policies in order, the first refusal ending the request, the
 * binding outcome shown, charges recorded for the request; a step that waited continues where the adapter says (the
 * calling thread itself for an adapter that waits, {@link RateLimitChain#await}), never where the backend answered; and an
 * error of a key resolver, or of the adapter's executor, ends the chain with that error rather than never.
 */
class RateLimitChainTests {

	private final RateLimitEnforcerTests.FailingBackend backend = new RateLimitEnforcerTests.FailingBackend();

	private final RateLimitChain chain = new RateLimitChain(new RateLimitEnforcer(List.of(), this.backend,
			new CircuitBreaker(), new DenyCache(100, DenyCache.DEFAULT_MAX_AGE), 1));

	private final List<String> resolvedOn = Collections.synchronizedList(new ArrayList<>());

	@Test
	void theFirstRefusalEndsTheRequestAndTheLaterPoliciesAreNotDecided() {
		PolicyDefinition wide = policy("wide", "10/1h");
		PolicyDefinition narrow = policy("narrow", "1/1h");
		PolicyDefinition never = policy("never", "10/1h");
		List<RateLimitChain.Step> steps = steps(wide, narrow, never);
		assertThat(await(request(), steps).admitted()).isTrue();
		int calls = this.backend.calls.get();
		RateLimitChain.Verdict refused = await(request(), steps);
		assertThat(refused.admitted()).isFalse();
		assertThat(refused.refusal().policy()).isEqualTo(narrow);
		assertThat(refused.shown()).isNull();
		assertThat(this.backend.calls).as("wide and narrow decided, never not").hasValue(calls + 2);
	}

	@Test
	void theResponseShowsTheOutcomeWithTheFewestPermitsLeft() {
		PolicyDefinition wide = policy("wide", "10/1h");
		PolicyDefinition narrow = policy("narrow", "3/1h");
		PolicyDefinition middle = policy("middle", "5/1h");
		RateLimitChain.Verdict verdict = await(request(), steps(wide, narrow, middle));
		assertThat(verdict.shown().policy()).isEqualTo(narrow);
		assertThat(verdict.shown().decision().remaining()).isEqualTo(2);
	}

	@Test
	void outsideARequestTheOutcomeWithTheFewestPermitsLeftIsShownToo() {
		// the gateway's RateLimiter contract decides without the exchange when none is in the Reactor context, and
		// answers with the headers of the outcome shown
		RateLimitChain.Step wide = new KeyedStep(policy("wide", "10/1h"),
				() -> CompletableFuture.completedFuture("client"));
		RateLimitChain.Step narrow = new KeyedStep(policy("narrow", "3/1h"),
				() -> CompletableFuture.completedFuture("client"));
		RateLimitChain.Verdict verdict = this.chain.decide(null, List.of(wide, narrow), false, Runnable::run, null)
			.join();
		assertThat(verdict.shown().policy().name()).isEqualTo("narrow");
		assertThat(verdict.shown().decision().remaining()).isEqualTo(2);
	}

	@Test
	void aChargingChainRecordsItsChargesAndNoChainChargesThemAgainInTheSameRequest() {
		PolicyDefinition policy = policy("orders", "10/1h");
		RateLimitRequest request = request();
		assertThat(await(request, steps(policy), true).shown().decision().remaining()).isEqualTo(9);
		assertThat(RequestRateLimits.of(request).isCharged(policy, "198.51.100.7")).isTrue();
		int calls = this.backend.calls.get();
		assertThat(await(request, steps(policy), false).admitted()).isTrue();
		assertThat(this.backend.calls).as("charged by the filter: not again").hasValue(calls);
		RateLimitRequest another = request();
		assertThat(await(another, steps(policy), false).shown().decision().remaining()).isEqualTo(8);
		assertThat(RequestRateLimits.of(another).isCharged(policy, "198.51.100.7")).as("a chain that does not charge")
			.isFalse();
	}

	@Test
	void stepsThatWaitedContinueOnTheCallingThreadNotWhereTheBackendAnswered() {
		// each answer completes on a thread of its own once the caller waits for it, so that every step waits
		Thread caller = Thread.currentThread();
		this.backend.answering = (task) -> new Thread(() -> {
			while (caller.getState() != Thread.State.WAITING) {
				Thread.onSpinWait();
			}
			task.run();
		}, "answering").start();
		PolicyDefinition first = policy("first", "10/1h");
		PolicyDefinition second = policy("second", "10/1h");
		PolicyDefinition third = policy("third", "10/1h");
		RateLimitChain.Verdict verdict = await(request(), steps(first, second, third));
		assertThat(verdict.admitted()).isTrue();
		assertThat(this.resolvedOn).as("each key resolved on the caller's thread")
			.containsExactly(Thread.currentThread().getName(), Thread.currentThread().getName(),
					Thread.currentThread().getName());
	}

	@Test
	void aFailingKeyResolverEndsTheChainWithItsError() {
		PolicyDefinition policy = policy("orders", "10/1h");
		RateLimitChain.Step failing = new KeyedStep(policy,
				() -> CompletableFuture.failedFuture(new IllegalStateException("no key")));
		assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> await(request(), List.of(failing)))
			.withMessage("no key");
	}

	@Test
	void anExecutorThatRejectsAContinuationEndsTheChainRatherThanLeavingItUnanswered() {
		List<Runnable> answers = new ArrayList<>();
		this.backend.answering = answers::add;
		CompletableFuture<RateLimitChain.Verdict> verdict = this.chain.decide(request(),
				steps(policy("orders", "10/1h")), true, (task) -> {
					throw new RejectedExecutionException("shut down");
				}, null);
		assertThat(verdict).isNotDone();
		answers.forEach(Runnable::run);
		assertThatExceptionOfType(CompletionException.class).isThrownBy(verdict::join)
			.withRootCauseInstanceOf(RejectedExecutionException.class);
	}

	private RateLimitChain.Verdict await(RateLimitRequest request, List<RateLimitChain.Step> steps) {
		return await(request, steps, true);
	}

	private RateLimitChain.Verdict await(RateLimitRequest request, List<RateLimitChain.Step> steps, boolean charges) {
		return this.chain.await(request, steps, charges);
	}

	private static List<RateLimitChain.Step> steps(PolicyDefinition... policies) {
		return java.util.Arrays.stream(policies).map(RateLimitChain.Step::of).toList();
	}

	private PolicyDefinition policy(String name, String limit) {
		Policy policy = Policy.of(name, Algorithm.TOKEN_BUCKET, limit);
		KeyResolver key = (request) -> {
			this.resolvedOn.add(Thread.currentThread().getName());
			return request.remoteAddress();
		};
		return PolicyDefinition.of(policy, this.backend.create(policy), "ip", key, List.of(), List.of(), Set.of(), 1,
				FailureMode.OPEN, false);
	}

	private static RateLimitRequest request() {
		MockHttpServletRequest request = new MockHttpServletRequest();
		request.setRemoteAddr("198.51.100.7");
		return ServletRequests.of(request);
	}

}
