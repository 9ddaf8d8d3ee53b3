package io.github.ratelimit.spring;

import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.core.Policy;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.core.resilience.CircuitBreaker;
import io.github.ratelimit.core.resilience.DenyCache;
import io.github.ratelimit.redis.RedisRateLimiterBackend;
import io.github.ratelimit.test.Await;
import io.github.ratelimit.test.TestRedis;
import io.github.ratelimit.test.TestRedis.EmbeddedRedis;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A decision whose caller cancels it while Redis decides (a reactive subscriber whose client went away: Reactor
 * cancels the future it waits on) is consumed in Redis all the same, so it is recorded, its refusal remembered, its
 * breaker ticket reported and its observation stopped, once; and a chain cancelled so asks no further policy. Redis is
 * held with {@code CLIENT PAUSE} while the caller cancels. Before, the cancelled future was the one whose completion
 * recorded the decision: none of that happened.
 */
class CancelledDecisionTests {

	private EmbeddedRedis redis;

	private LettuceConnectionFactory connectionFactory;

	private LettuceConnectionFactory admin;

	private RedisRateLimiterBackend backend;

	private final List<Long> recorded = new CopyOnWriteArrayList<>();

	private final List<RateLimitOutcome> outcomes = new CopyOnWriteArrayList<>();

	private final AtomicInteger started = new AtomicInteger();

	private final AtomicInteger stopped = new AtomicInteger();

	private final CircuitBreaker breaker = new CircuitBreaker();

	private RateLimitEnforcer enforcer;

	@BeforeEach
	void start() {
		this.redis = EmbeddedRedis.start(TestRedis.freePort());
		this.connectionFactory = this.redis.newConnectionFactory();
		this.admin = this.redis.newConnectionFactory();
		this.backend = new RedisRateLimiterBackend(this.connectionFactory, "cancelled", TestRedis.TIMEOUT);
		this.backend.start();
		RateLimitRecorder recorder = (outcome, backendNanos) -> {
			// the time first: a test that sees the outcome reads its time
			this.recorded.add(backendNanos);
			this.outcomes.add(outcome);
		};
		this.enforcer = new RateLimitEnforcer(List.of(recorder), this.backend, this.breaker,
				new DenyCache(100, Duration.ofMinutes(1)), 1);
		ObservationRegistry observations = ObservationRegistry.create();
		observations.observationConfig().observationHandler(new ObservationHandler<>() {

			@Override
			public void onStart(Observation.Context context) {
				CancelledDecisionTests.this.started.incrementAndGet();
			}

			@Override
			public void onStop(Observation.Context context) {
				CancelledDecisionTests.this.stopped.incrementAndGet();
			}

			@Override
			public boolean supportsContext(Observation.Context context) {
				return true;
			}

		});
		this.enforcer.observeWith(observations, null);
	}

	@AfterEach
	void stop() {
		try {
			this.backend.close();
			this.connectionFactory.destroy();
			this.admin.destroy();
		}
		finally {
			this.redis.stop();
		}
	}

	@Test
	void aDecisionCancelledByItsCallerIsRecordedRememberedReportedAndObservedOnce() {
		PolicyDefinition policy = policy("cancelled", "1/1h");
		assertThat(this.enforcer.enforceAsync(policy, policy.defaultPlan(), "client", 1).toCompletableFuture().join()
			.kind()).isEqualTo(RateLimitOutcome.Kind.ALLOWED);
		pauseRedis();
		CompletableFuture<RateLimitOutcome> cancelled = this.enforcer
			.enforceAsync(policy, policy.defaultPlan(), "client", 1)
			.toCompletableFuture();
		assertThat(cancelled).as("Redis is paused").isNotDone();
		assertThat(cancelled.cancel(true)).isTrue();
		Await.until(() -> this.outcomes.size() == 2);
		assertThat(this.outcomes.get(1).kind()).as("Redis refused it").isEqualTo(RateLimitOutcome.Kind.DENIED);
		assertThat(this.recorded.get(1)).as("recorded with Redis' time").isNotNegative();
		Await.until(() -> this.stopped.get() == 2);
		assertThat(this.started).as("each decision observed once, and stopped").hasValue(2);
		// the refusal was remembered: the next request is refused without asking Redis
		assertThat(this.enforcer.enforceAsync(policy, policy.defaultPlan(), "client", 1).toCompletableFuture().join()
			.kind()).isEqualTo(RateLimitOutcome.Kind.DENIED);
		assertThat(this.recorded.get(2)).as("refused from the deny cache").isNegative();
		assertThat(this.outcomes).hasSize(3);
	}

	@Test
	void aCancelledProbeIsReportedToTheBreaker() throws InterruptedException {
		// unobserved: the outcome is the very stage whose completion reports to the breaker
		this.enforcer.observeWith(ObservationRegistry.NOOP, null);
		PolicyDefinition policy = policy("probe", "100/1h");
		openBreaker();
		Thread.sleep(this.breaker.retryAfter().toMillis() + 10);
		pauseRedis();
		CompletableFuture<RateLimitOutcome> probe = this.enforcer.enforceAsync(policy, policy.defaultPlan(), "client", 1)
			.toCompletableFuture();
		assertThat(probe).as("the probe waits for paused Redis").isNotDone();
		probe.cancel(true);
		// Redis answers the probe: its success closes the breaker, with no other request to probe again (the breaker
		// hears of it before the outcome is recorded)
		Await.until(() -> this.outcomes.size() == 1);
		assertThat(this.breaker.isOpen()).isFalse();
		assertThat(this.outcomes).singleElement()
			.satisfies((outcome) -> assertThat(outcome.kind()).isEqualTo(RateLimitOutcome.Kind.ALLOWED));
	}

	@Test
	void aChainCancelledByItsCallerAsksNoFurtherPolicy() {
		PolicyDefinition first = policy("first", "100/1h");
		PolicyDefinition second = policy("second", "100/1h");
		AtomicInteger secondKeys = new AtomicInteger();
		RateLimitChain.Step counted = new KeyedStep(second, () -> {
			secondKeys.incrementAndGet();
			return CompletableFuture.completedFuture("client");
		});
		RateLimitChain.Step firstStep = new KeyedStep(first, () -> CompletableFuture.completedFuture("client"));
		Queue<Runnable> continuations = new ConcurrentLinkedQueue<>();
		pauseRedis();
		CompletableFuture<RateLimitChain.Verdict> verdict = new RateLimitChain(this.enforcer)
			.decide(null, List.of(firstStep, counted), false, continuations::add, null);
		assertThat(verdict).isNotDone();
		verdict.cancel(true);
		// Redis answers the first policy; the walk continues on its continuation executor, here on the test's thread
		Await.until(() -> !continuations.isEmpty());
		continuations.poll().run();
		assertThat(this.outcomes).extracting((outcome) -> outcome.policy().name()).containsExactly("first");
		assertThat(secondKeys).as("the second policy was not asked for a request gone").hasValue(0);
	}

	@Test
	void aFixedWindowGrantToAWaitingRequestThatGaveUpIsGivenBack() {
		Policy fixed = Policy.of("returned", Algorithm.FIXED_WINDOW, "5/1h");
		RateLimiter limiter = this.backend.create(fixed);
		PolicyDefinition policy = PolicyDefinition.of(fixed, limiter, "ip", (request) -> null, List.of(), List.of(),
				Set.of(), 1, FailureMode.OPEN, false);
		pauseRedis();
		CompletableFuture<RateLimitOutcome> waiting = this.enforcer
			.enforceAsync(policy, policy.defaultPlan(), "client", 2, null, Duration.ofSeconds(30), Runnable::run)
			.toCompletableFuture();
		assertThat(waiting).as("the call waits for paused Redis").isNotDone();
		waiting.cancel(false);
		// Redis grants the 2 permits to a request that gave up, with nobody behind it: they go back to the window
		Await.until(() -> this.outcomes.size() == 1);
		assertThat(this.outcomes).singleElement()
			.satisfies((outcome) -> assertThat(outcome.kind()).isEqualTo(RateLimitOutcome.Kind.ALLOWED));
		Await.until(() -> limiter.peek(policy.storedKey("client")).remaining() == 5);
	}

	private void openBreaker() {
		for (int i = 0; i < 10; i++) {
			this.breaker.onFailure(this.breaker.tryCall(), new IllegalStateException("down"));
		}
		assertThat(this.breaker.isOpen()).isTrue();
	}

	/** Pauses Redis' clients for long enough that a caller cancels first; the pause is in effect when this returns. */
	private void pauseRedis() {
		try (RedisConnection connection = this.admin.getConnection()) {
			connection.execute("CLIENT", "PAUSE".getBytes(), "500".getBytes());
		}
	}

	private PolicyDefinition policy(String name, String limit) {
		Policy policy = Policy.of(name, Algorithm.TOKEN_BUCKET, limit);
		return PolicyDefinition.of(policy, this.backend.create(policy), "ip", (request) -> null, List.of(), List.of(),
				Set.of(), 1, FailureMode.OPEN, false);
	}

}
