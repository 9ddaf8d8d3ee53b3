package io.github.ratelimit.spring;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.Limit;
import io.github.ratelimit.core.Policy;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.core.RateLimiterBackend;
import io.github.ratelimit.core.memory.InMemoryRateLimiterBackend;
import io.github.ratelimit.core.resilience.CircuitBreaker;
import io.github.ratelimit.core.resilience.DenyCache;
import io.github.ratelimit.test.LettuceLibrary;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * How the enforcer tells a failing backend from a failing request, on a backend whose limiters can be made to fail
 * on demand (in memory underneath): only the backend's failures (a {@link LinkageError} among them) reach the circuit
 * breaker, and every failure gets its policy's failure mode. Every test runs on each of the ways
 * ({@link Path}): the backend answering at once, or later on another thread, as Lettuce does.
 */
@ParameterizedClass
@EnumSource(RateLimitEnforcerTests.Path.class)
class RateLimitEnforcerTests {

	private static final ExecutorService answering = Executors.newSingleThreadExecutor();

	@Parameter
	Path path;

	private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

	private final FailingBackend backend = new FailingBackend();

	private final List<String> timeouts = new ArrayList<>();

	private final List<RateLimitOutcome> outcomes = new ArrayList<>();

	private final CircuitBreaker breaker = new CircuitBreaker(50, Duration.ofSeconds(1), 10, Duration.ofSeconds(1),
			this.nanos::get);

	private final RateLimitEnforcer enforcer = new RateLimitEnforcer(List.of(new RateLimitRecorder() {

		@Override
		public void record(RateLimitOutcome outcome, long backendNanos) {
			RateLimitEnforcerTests.this.outcomes.add(outcome);
		}

		@Override
		public void timedOut(PolicyDefinition policy) {
			RateLimitEnforcerTests.this.timeouts.add(policy.name());
		}

	}), this.backend, this.breaker, new DenyCache(100, Duration.ofSeconds(1)), 1);

	@BeforeEach
	void answerAsThePathDoes() {
		this.backend.answering = (this.path == Path.ASYNC_LATER) ? answering : null;
	}

	@AfterAll
	static void stopAnswering() {
		answering.shutdownNow();
	}

	/**
	 * Enforces a policy the way this run's path does, throwing what the path lets through (an {@link Error}).
	 */
	private RateLimitOutcome enforce(PolicyDefinition policy, String key, long permits) {
		return enforce(this.enforcer, policy, key, permits);
	}

	private RateLimitOutcome enforce(RateLimitEnforcer enforcer, PolicyDefinition policy, String key, long permits) {
		// join, not get: a caller's interrupt (one test sets it) must not stop the wait
		CompletableFuture<RateLimitOutcome> outcome = enforcer.enforceAsync(policy, policy.defaultPlan(), key, permits)
			.toCompletableFuture()
			.orTimeout(10, TimeUnit.SECONDS);
		try {
			return outcome.join();
		}
		catch (CompletionException ex) {
			Throwable cause = (ex.getCause() instanceof CompletionException wrapped) ? wrapped.getCause() : ex.getCause();
			if (cause instanceof Error error) {
				throw error;
			}
			throw new IllegalStateException("enforceAsync completed exceptionally", cause);
		}
	}

	@Test
	void aPoisonRequestGetsItsFailureModeAndLeavesTheBreakerAndOtherPoliciesAlone() {
		PolicyDefinition poisoned = policy("poisoned", "100/1h", FailureMode.CLOSED);
		PolicyDefinition other = policy("other", "5/1h", FailureMode.OPEN);
		List<RateLimitOutcome.Kind> others = new ArrayList<>();
		for (int i = 0; i < 50; i++) {
			assertThat(enforce(poisoned, FailingBackend.POISON, 1).kind())
				.isEqualTo(RateLimitOutcome.Kind.FAILED_CLOSED);
			others.add(enforce(other, "client", 1).kind());
		}
		assertThat(this.breaker.isOpen()).isFalse();
		assertThat(others.subList(0, 5)).containsOnly(RateLimitOutcome.Kind.ALLOWED);
		assertThat(others.subList(5, 50)).containsOnly(RateLimitOutcome.Kind.DENIED);
		assertThat(enforce(poisoned, "client", 1).kind()).isEqualTo(RateLimitOutcome.Kind.ALLOWED);
		assertThat(this.timeouts).isEmpty();
	}

	@Test
	void aPoisonRequestTheLocalLimiterCannotDecideEitherIsRefusedWithoutAnError() {
		PolicyDefinition local = policy("local", "100/1h", FailureMode.LOCAL);
		// an empty key: both the policy's limiter and the local one refuse to decide it
		assertThat(enforce(local, "", 1).kind()).isEqualTo(RateLimitOutcome.Kind.FAILED_CLOSED);
		assertThat(enforce(local, FailingBackend.POISON, 1).kind())
			.isEqualTo(RateLimitOutcome.Kind.FALLBACK);
		assertThat(this.breaker.isOpen()).isFalse();
	}

	@Test
	void backendFailuresOpenTheBreakerAtTheThresholdAndAProbeClosesIt() {
		PolicyDefinition policy = policy("hello", "1000/1h", FailureMode.OPEN);
		this.backend.failure = () -> new BackendDown("connection refused");
		for (int i = 0; i < 9; i++) {
			enforce(policy, "client", 1);
		}
		assertThat(this.breaker.isOpen()).isFalse();
		enforce(policy, "client", 1);
		assertThat(this.breaker.isOpen()).isTrue();
		int calls = this.backend.calls.get();
		assertThat(enforce(policy, "client", 1).kind()).isEqualTo(RateLimitOutcome.Kind.FAILED_OPEN);
		assertThat(this.backend.calls).as("skipped while open").hasValue(calls);
		this.backend.failure = null;
		advance(Duration.ofSeconds(1));
		assertThat(enforce(policy, "client", 1).kind()).isEqualTo(RateLimitOutcome.Kind.ALLOWED);
		assertThat(this.breaker.isOpen()).isFalse();
	}

	@Test
	void timedOutDecisionsAreCountedAsTimeoutsAndGetTheirFailureMode() {
		PolicyDefinition policy = policy("slow", "1000/1h", FailureMode.LOCAL);
		this.backend.failure = () -> new BackendTimeout("no answer within 100 ms");
		for (int i = 0; i < 3; i++) {
			assertThat(enforce(policy, "client", 1).kind()).isEqualTo(RateLimitOutcome.Kind.FALLBACK);
		}
		this.backend.failure = () -> new BackendDown("connection refused");
		enforce(policy, "client", 1);
		assertThat(this.timeouts).containsExactly("slow", "slow", "slow");
	}

	@Test
	void aLinkageErrorIsABackendFailureThatGetsEachPolicysFailureMode() {
		this.backend.failure = () -> {
			throw new NoSuchMethodError(LettuceLibrary.REMOVED_METHOD);
		};
		PolicyDefinition open = policy("open", "1000/1h", FailureMode.OPEN);
		PolicyDefinition closed = policy("closed", "1000/1h", FailureMode.CLOSED);
		PolicyDefinition local = policy("local", "1000/1h", FailureMode.LOCAL);
		List<RateLimitOutcome.Kind> kinds = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			kinds.add(enforce(open, "client", 1).kind());
			kinds.add(enforce(closed, "client", 1).kind());
			kinds.add(enforce(local, "client", 1).kind());
		}
		assertThat(kinds).containsExactly(RateLimitOutcome.Kind.FAILED_OPEN, RateLimitOutcome.Kind.FAILED_CLOSED,
				RateLimitOutcome.Kind.FALLBACK, RateLimitOutcome.Kind.FAILED_OPEN, RateLimitOutcome.Kind.FAILED_CLOSED,
				RateLimitOutcome.Kind.FALLBACK, RateLimitOutcome.Kind.FAILED_OPEN, RateLimitOutcome.Kind.FAILED_CLOSED,
				RateLimitOutcome.Kind.FALLBACK);
		assertThat(this.breaker.isOpen()).isFalse();
		enforce(open, "client", 1);
		assertThat(this.breaker.isOpen()).as("ten backend failures").isTrue();
		assertThat(this.timeouts).isEmpty();
	}

	@Test
	void anErrorDuringAProbeFreesTheProbeForTheNextCall() {
		PolicyDefinition policy = policy("hello", "1000/1h", FailureMode.OPEN);
		open(policy);
		advance(Duration.ofSeconds(1));
		this.backend.failure = () -> {
			throw new StackOverflowError("probe");
		};
		assertThatExceptionOfType(StackOverflowError.class).isThrownBy(() -> enforce(policy, "client", 1));
		this.backend.failure = null;
		assertThat(enforce(policy, "client", 1).kind()).isEqualTo(RateLimitOutcome.Kind.ALLOWED);
		assertThat(this.breaker.isOpen()).isFalse();
	}

	@Test
	void aPoisonProbeFreesTheProbeForTheNextCall() {
		PolicyDefinition policy = policy("hello", "1000/1h", FailureMode.OPEN);
		open(policy);
		advance(Duration.ofSeconds(1));
		this.backend.failure = null;
		assertThat(enforce(policy, FailingBackend.POISON, 1).kind())
			.isEqualTo(RateLimitOutcome.Kind.FAILED_OPEN);
		assertThat(enforce(policy, "client", 1).kind()).isEqualTo(RateLimitOutcome.Kind.ALLOWED);
		assertThat(this.breaker.isOpen()).isFalse();
	}

	@Test
	void anInterruptedCallerKeepsItsInterruptAndTheBreakerDoesNotCountIt() {
		PolicyDefinition policy = policy("hello", "1000/1h", FailureMode.CLOSED);
		this.backend.failure = () -> {
			Thread.currentThread().interrupt();
			return new CancellationException("interrupted while waiting");
		};
		try {
			for (int i = 0; i < 20; i++) {
				assertThat(enforce(policy, "client", 1).kind())
					.isEqualTo(RateLimitOutcome.Kind.FAILED_CLOSED);
				assertThat(Thread.currentThread().isInterrupted()).isTrue();
			}
		}
		finally {
			Thread.interrupted();
		}
		assertThat(this.breaker.isOpen()).isFalse();
		assertThat(this.timeouts).isEmpty();
	}

	@Test
	void theDenyCacheSurvivesTheBreakerOpeningAndClosing() {
		PolicyDefinition limited = policy("limited", "1/1h", FailureMode.OPEN);
		PolicyDefinition other = policy("other", "1000/1h", FailureMode.OPEN);
		assertThat(enforce(limited, "client", 1).kind()).isEqualTo(RateLimitOutcome.Kind.ALLOWED);
		assertThat(enforce(limited, "client", 1).kind()).isEqualTo(RateLimitOutcome.Kind.DENIED);
		open(other);
		advance(Duration.ofSeconds(1));
		this.backend.failure = null;
		enforce(other, "client", 1);
		assertThat(this.breaker.isOpen()).isFalse();
		int calls = this.backend.calls.get();
		assertThat(enforce(limited, "client", 1).kind()).isEqualTo(RateLimitOutcome.Kind.DENIED);
		assertThat(this.backend.calls).as("refused from the deny cache").hasValue(calls);
	}

	/**
	 * A refusal made by limits a refresh has replaced, remembered because its request read the policies just before
	 * they were swapped, never answers for the new limits: their client is decided by them (which could not name the
	 * old limit in their headers).
	 */
	@Test
	void aRefusalByReplacedLimitsIsNotTheAnswerOfTheNewOnes() {
		PolicyDefinition replaced = policy("api", "1/1h", FailureMode.OPEN);
		PolicyDefinition current = policy("api", "2/1h", FailureMode.OPEN);
		assertThat(enforce(replaced, "client", 1).kind()).isEqualTo(RateLimitOutcome.Kind.ALLOWED);
		assertThat(enforce(replaced, "client", 1).kind()).isEqualTo(RateLimitOutcome.Kind.DENIED);
		int calls = this.backend.calls.get();
		RateLimitOutcome outcome = enforce(current, "client", 1);
		assertThat(outcome.kind()).isEqualTo(RateLimitOutcome.Kind.ALLOWED);
		assertThat(outcome.decision().limit()).isEqualTo(Limit.parse("2/1h"));
		assertThat(this.backend.calls).as("decided by the backend").hasValue(calls + 1);
	}

	@Test
	void aReaskOfAnAgedRefusalThatGetsNoAnswerLetsTheNextRequestAskAgain() {
		RateLimitEnforcer enforcer = new RateLimitEnforcer(List.of(), this.backend, this.breaker,
				new DenyCache(100, Duration.ofSeconds(2), this.nanos::get), 1);
		PolicyDefinition policy = policy("flood", "1/1h", FailureMode.OPEN);
		assertThat(enforce(enforcer, policy, "client", 1).kind()).isEqualTo(RateLimitOutcome.Kind.ALLOWED);
		assertThat(enforce(enforcer, policy, "client", 1).kind()).isEqualTo(RateLimitOutcome.Kind.DENIED);
		assertThat(enforce(enforcer, policy, "client", 1).kind()).isEqualTo(RateLimitOutcome.Kind.DENIED);
		assertThat(this.backend.calls).hasValue(2);
		advance(Duration.ofSeconds(2));
		this.backend.failure = () -> new BackendTimeout("no answer in time");
		assertThat(enforce(enforcer, policy, "client", 1).kind()).isEqualTo(RateLimitOutcome.Kind.FAILED_OPEN);
		assertThat(this.backend.calls).hasValue(3);
		this.backend.failure = null;
		assertThat(enforce(enforcer, policy, "client", 1).kind()).isEqualTo(RateLimitOutcome.Kind.DENIED);
		assertThat(this.backend.calls).hasValue(4);
		advance(Duration.ofSeconds(2));
		open(policy);
		int calls = this.backend.calls.get();
		// the open breaker lets the re-ask through to no call, and so no answer
		assertThat(enforce(enforcer, policy, "client", 1).kind()).isEqualTo(RateLimitOutcome.Kind.FAILED_OPEN);
		this.backend.failure = null;
		advance(Duration.ofSeconds(1));
		assertThat(enforce(enforcer, policy, "client", 1).kind()).isEqualTo(RateLimitOutcome.Kind.DENIED);
		assertThat(enforce(enforcer, policy, "client", 1).kind()).isEqualTo(RateLimitOutcome.Kind.DENIED);
		assertThat(this.backend.calls).hasValue(calls + 1);
	}

	@Test
	void aReaskWhoseCallerWentAwayStillEndsWhenTheBackendAnswers() {
		RateLimitEnforcer enforcer = new RateLimitEnforcer(List.of(), this.backend, this.breaker,
				new DenyCache(100, Duration.ofSeconds(2), this.nanos::get), 1);
		PolicyDefinition policy = policy("flood", "1/1h", FailureMode.OPEN);
		assertThat(enforce(enforcer, policy, "client", 1).kind()).isEqualTo(RateLimitOutcome.Kind.ALLOWED);
		assertThat(enforce(enforcer, policy, "client", 1).kind()).isEqualTo(RateLimitOutcome.Kind.DENIED);
		advance(Duration.ofSeconds(2));
		CompletableFuture<Void> answer = new CompletableFuture<>();
		this.backend.answering = answer::thenRun;
		this.backend.failure = () -> new BackendTimeout("no answer in time");
		CompletableFuture<RateLimitOutcome> reask = enforcer
			.enforceAsync(policy, policy.defaultPlan(), "client", 1)
			.toCompletableFuture();
		// the client went away (a WebFlux request cancelled) before the backend's answer came
		assertThat(reask.cancel(true)).isTrue();
		answer.complete(null);
		this.backend.answering = null;
		this.backend.failure = null;
		assertThat(this.backend.calls).hasValue(3);
		assertThat(enforce(enforcer, policy, "client", 1).kind()).isEqualTo(RateLimitOutcome.Kind.DENIED);
		assertThat(this.backend.calls).as("the next request asked again").hasValue(4);
	}

	/** How the enforcer is called, and how the backend answers. */
	enum Path {

		/** {@link RateLimitEnforcer#enforceAsync}, the backend answering before it returns. */
		ASYNC_AT_ONCE,

		/** {@link RateLimitEnforcer#enforceAsync}, the backend answering later on another thread. */
		ASYNC_LATER

	}

	private void open(PolicyDefinition policy) {
		this.backend.failure = () -> new BackendDown("connection refused");
		for (int i = 0; i < 10; i++) {
			enforce(policy, "client", 1);
		}
		assertThat(this.breaker.isOpen()).isTrue();
	}

	private void advance(Duration duration) {
		this.nanos.addAndGet(duration.toNanos());
	}

	private PolicyDefinition policy(String name, String limit, FailureMode failureMode) {
		Policy policy = Policy.of(name, Algorithm.TOKEN_BUCKET, limit);
		return PolicyDefinition.of(policy, this.backend.create(policy), "ip", (request) -> null, List.of(), List.of(),
				Set.of(), 1, failureMode, false);
	}

	/** A backend failure, as the backend classifies it. */
	static class BackendDown extends RuntimeException {

		BackendDown(String message) {
			super(message);
		}

	}

	/** A backend timeout, as the backend classifies it. */
	static class BackendTimeout extends BackendDown {

		BackendTimeout(String message) {
			super(message);
		}

	}

	/** What a failing limiter throws, or an {@link Error} it throws itself. */
	interface Failure {

		RuntimeException next();

	}

	/**
	 * In-memory limiters that throw the failure set, and an {@link ArithmeticException} for the key
	 * {@value #POISON} (a bug on one request's input).
	 */
	static final class FailingBackend implements RateLimiterBackend {

		static final String POISON = "poison";

		private final InMemoryRateLimiterBackend memory = new InMemoryRateLimiterBackend();

		volatile @Nullable Failure failure;

		/** Where asynchronous answers complete, or {@code null} to answer before returning. */
		volatile @Nullable Executor answering;

		final AtomicInteger calls = new AtomicInteger();

		@Override
		public RateLimiter create(Policy policy) {
			RateLimiter limiter = this.memory.create(policy);
			return new RateLimiter() {

				@Override
				public Policy policy() {
					return policy;
				}

				@Override
				public Decision tryAcquire(String key, long permits) {
					FailingBackend.this.calls.incrementAndGet();
					Failure current = FailingBackend.this.failure;
					if (current != null) {
						throw current.next();
					}
					if (POISON.equals(key)) {
						throw new ArithmeticException("long overflow");
					}
					return limiter.tryAcquire(key, permits);
				}

				/**
				 * The decision of {@link #tryAcquire}, or its failure (an {@link Error} included), as a future that
				 * completes at once or on the answering thread. The failure is made on the caller's thread, as a
				 * client's own argument checks and interrupts are.
				 */
				@Override
				public CompletionStage<Decision> tryAcquireAsync(String key, long permits) {
					CompletableFuture<Decision> answer = new CompletableFuture<>();
					try {
						answer.complete(tryAcquire(key, permits));
					}
					catch (RuntimeException | Error ex) {
						answer.completeExceptionally(ex);
					}
					Executor later = FailingBackend.this.answering;
					return (later != null) ? answer.handleAsync((decision, error) -> answer, later)
						.thenCompose((answered) -> answered) : answer;
				}

				@Override
				public Decision peek(String key) {
					return limiter.peek(key);
				}

				@Override
				public void reset(String key) {
					limiter.reset(key);
				}

			};
		}

		@Override
		public String name() {
			return "failing";
		}

		@Override
		public boolean isBackendFailure(Throwable error) {
			return error instanceof BackendDown;
		}

		@Override
		public boolean isTimeout(Throwable error) {
			return error instanceof BackendTimeout;
		}

	}

}
