package io.github.ratelimit.resilience;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.core.Policy;
import io.github.ratelimit.core.lease.LeaseSettings;
import io.github.ratelimit.core.lease.LeasedRateLimiter;
import io.github.ratelimit.core.resilience.CircuitBreaker;
import io.github.ratelimit.redis.RedisRateLimiterBackend;
import io.github.ratelimit.spring.FailureMode;
import io.github.ratelimit.spring.PolicyDefinition;
import io.github.ratelimit.spring.RateLimitEnforcer;
import io.github.ratelimit.spring.RateLimitOutcome;
import io.github.ratelimit.spring.RateLimitRecorder;
import io.github.ratelimit.test.TestRedis;
import io.github.ratelimit.test.TestRedis.EmbeddedRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static io.github.ratelimit.test.Decisions.enforce;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The circuit breaker with the default settings in front of a real Redis that stalls, goes down and comes back, and
 * next to a policy whose requests fail for a reason of their own: only Redis opens it, and only when it fails for
 * real.
 */
class CircuitBreakerRedisTests {

	/**
	 * Shorter than the stall by the grace a timeout gives a reply that is arriving (20 ms, and a tick or two of the
	 * timer) and a busy machine's delays, so that the calls reaching Redis during it fail; as long as that allows, so
	 * that a loaded machine does not fail calls outside it.
	 */
	private static final Duration TIMEOUT = Duration.ofMillis(100);

	private EmbeddedRedis redis;

	private LettuceConnectionFactory connectionFactory;

	private LettuceConnectionFactory admin;

	private RedisRateLimiterBackend backend;

	private final CircuitBreaker breaker = new CircuitBreaker();

	private final AtomicInteger skipped = new AtomicInteger();

	/** Requests failed by a call to Redis that failed, per policy. */
	private final Map<String, AtomicInteger> failedCalls = new ConcurrentHashMap<>();

	private RateLimitEnforcer enforcer;

	@BeforeEach
	void start() {
		this.redis = EmbeddedRedis.start(TestRedis.freePort());
		this.connectionFactory = this.redis.newConnectionFactory();
		this.admin = this.redis.newConnectionFactory();
	}

	/**
	 * The backend and the enforcer of a test, whose decisions wait at most {@code timeout}.
	 */
	private void connect(Duration timeout) {
		this.backend = new RedisRateLimiterBackend(this.connectionFactory, "breaker", timeout);
		this.backend.start();
		RateLimitRecorder skips = (outcome, backendNanos) -> {
			if (outcome.kind().failed()) {
				((backendNanos < 0) ? this.skipped
						: this.failedCalls.computeIfAbsent(outcome.policy().name(), (name) -> new AtomicInteger()))
					.incrementAndGet();
			}
		};
		this.enforcer = new RateLimitEnforcer(List.of(skips), this.backend, this.breaker, null, 1);
	}

	@AfterEach
	void stop() {
		try {
			if (this.backend != null) {
				this.backend.close();
			}
			this.connectionFactory.destroy();
			this.admin.destroy();
		}
		finally {
			this.redis.stop();
		}
	}

	@Test
	void aShortStallUnderSteadyLoadFailsOnlyTheCallsInFlightAndDoesNotOpenTheBreaker() throws Exception {
		connect(TIMEOUT);
		PolicyDefinition policy = policy("steady", "1000000/1h");
		warmUp(policy);
		ConcurrentLinkedQueue<Call> calls = new ConcurrentLinkedQueue<>();
		AtomicBoolean running = new AtomicBoolean(true);
		CountDownLatch loaded = new CountDownLatch(4);
		ExecutorService threads = Executors.newFixedThreadPool(4);
		List<Future<?>> load = new ArrayList<>();
		List<Call> stalls;
		try {
			for (int thread = 0; thread < 4; thread++) {
				String client = "client-" + thread;
				load.add(threads.submit(() -> {
					int made = 0;
					while (running.get()) {
						long start = System.nanoTime();
						RateLimitOutcome outcome = enforce(this.enforcer, policy, client, 1);
						calls.add(new Call(start, System.nanoTime(), outcome.kind()));
						if (++made == 50) {
							loaded.countDown();
						}
					}
				}));
			}
			loaded.await();
			Thread.sleep(300);
			stalls = stallUntilACallFails(policy, "0.2", "0.4", "0.6");
		}
		finally {
			running.set(false);
			threads.shutdown();
		}
		for (Future<?> thread : load) {
			thread.get();
		}
		List<Call> failed = calls.stream().filter((call) -> call.kind() != RateLimitOutcome.Kind.ALLOWED).toList();
		assertThat(failed).as("the stall failed the calls in flight")
			.anySatisfy((call) -> assertThat(duringAny(call, stalls)).isTrue());
		// a call outside the stall may only have failed by waiting the whole timeout itself (a busy machine), never
		// by being turned away at once, as an open breaker would
		assertThat(failed).as("only calls in flight during the stall, or as slow as the timeout, failed")
			.allSatisfy((call) -> assertThat(duringAny(call, stalls) || call.end() - call.start() >= TIMEOUT.toNanos())
				.isTrue());
		assertThat(failed).extracting(Call::kind).containsOnly(RateLimitOutcome.Kind.FAILED_OPEN);
		assertThat(this.skipped).as("no call skipped Redis: the breaker never opened").hasValue(0);
		assertThat(this.breaker.isOpen()).isFalse();
	}

	/**
	 * A leased hot key (about 1,000 requests a second, adaptive batches: some ten renewals a second) beside an
	 * unrelated exact policy, and a stall of 300 ms (longer if a busy machine's timer gave the calls more time): the
	 * hot key's requests that wait for the renewal in flight all fail with it (one failed call), and its local
	 * decisions are successes. Before, each waiter was a failure of its own, a few
	 * hundred against a few calls, and the breaker opened for every policy for a second: the unrelated policy's
	 * requests were failed open without asking Redis (24–26 of them, in every run).
	 */
	@Test
	void aShortStallWithALeasedHotKeyLeavesTheBreakerClosedForAnUnrelatedPolicy() throws Exception {
		connect(TIMEOUT);
		PolicyDefinition hot = leased("hot", "1000000/1h");
		PolicyDefinition other = policy("other", "1000000/1h");
		warmUp(other);
		warmUp(hot);
		List<CompletableFuture<RateLimitOutcome>> hotRequests = new ArrayList<>();
		ConcurrentLinkedQueue<Call> otherCalls = new ConcurrentLinkedQueue<>();
		AtomicBoolean running = new AtomicBoolean(true);
		ExecutorService threads = Executors.newFixedThreadPool(2);
		List<Call> stalls;
		try {
			Future<?> hotLoad = threads.submit(() -> {
				while (running.get()) {
					hotRequests.add(this.enforcer.enforceAsync(hot, hot.defaultPlan(), "hot-client", 1)
						.toCompletableFuture());
					LockSupport.parkNanos(1_000_000);
				}
			});
			Future<?> otherLoad = threads.submit(() -> {
				while (running.get()) {
					long start = System.nanoTime();
					RateLimitOutcome outcome = enforce(this.enforcer, other, "other-client", 1);
					otherCalls.add(new Call(start, System.nanoTime(), outcome.kind()));
					LockSupport.parkNanos(10_000_000);
				}
			});
			Thread.sleep(1500);
			stalls = stallUntilACallFails(hot, "0.3", "0.5", "0.7");
			running.set(false);
			hotLoad.get();
			otherLoad.get();
		}
		finally {
			running.set(false);
			threads.shutdown();
		}
		CompletableFuture.allOf(hotRequests.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
		long hotFailed = hotRequests.stream().filter((request) -> request.join().kind().failed()).count();
		System.out.printf("[breaker-leasing] hot key: %d requests, %d failed by the stall; other: %d calls%n",
				hotRequests.size(), hotFailed, otherCalls.size());
		assertThat(hotFailed).as("the stall failed the hot key's waiting requests").isPositive();
		assertThat(this.skipped).as("no request skipped Redis: the breaker never opened").hasValue(0);
		assertThat(otherCalls).as("the unrelated policy failed only calls in flight during the stall or as slow as "
				+ "the timeout").allSatisfy((call) -> assertThat(call.kind() == RateLimitOutcome.Kind.ALLOWED
						|| duringAny(call, stalls) || call.end() - call.start() >= TIMEOUT.toNanos())
			.isTrue());
		assertThat(this.breaker.isOpen()).isFalse();
	}

	/**
	 * A request that costs more than a capacity is refused whatever the client's state, which the limiter reads from
	 * Redis only to report it: that read is not a call the breaker judges Redis by. Before, such a request took the
	 * half-open breaker's probe, its failed read came back as a refusal (the limiter's stateless answer), and the
	 * breaker closed onto a Redis that was down; or, with the breaker open, the failure mode let it through.
	 */
	@Test
	void aRequestCostingMoreThanACapacityIsRefusedWithoutProbingOrClosingTheBreaker() throws InterruptedException {
		connect(TIMEOUT);
		PolicyDefinition policy = policy("small", "5/1h");
		warmUp(policy);
		this.redis.stop();
		for (int i = 0; i < 10; i++) {
			this.breaker.onFailure(this.breaker.tryCall(), new IllegalStateException("down"));
		}
		assertThat(this.breaker.isOpen()).isTrue();
		assertThat(enforce(this.enforcer, policy, "client", 6).kind()).as("refused while open, not let through")
			.isEqualTo(RateLimitOutcome.Kind.DENIED);
		Thread.sleep(this.breaker.retryAfter().toMillis() + 10);
		assertThat(enforce(this.enforcer, policy, "client", 6).kind()).as("refused, its read failed")
			.isEqualTo(RateLimitOutcome.Kind.DENIED);
		assertThat(this.breaker.isOpen()).as("a failed read is no probe's success").isTrue();
		assertThat(enforce(this.enforcer, policy, "client", 1).kind()).as("the probe is still to be made")
			.isEqualTo(RateLimitOutcome.Kind.FAILED_OPEN);
		assertThat(this.breaker.isOpen()).isTrue();
	}

	@Test
	void aPoisonRequestOnOnePolicyLeavesAnotherDecidingExactly() {
		// exact counts: a generous budget, so that a slow answer on a busy machine is not let through failing open
		connect(TestRedis.TIMEOUT);
		PolicyDefinition poisoned = policy("poisoned", "100/1h");
		PolicyDefinition other = policy("other", "20/1h");
		List<RateLimitOutcome.Kind> kinds = new ArrayList<>();
		for (int i = 0; i < 60; i++) {
			// an empty key is refused by the limiter itself (IllegalArgumentException): a bug in one request
			assertThat(enforce(this.enforcer, poisoned, "", 1).kind()).isEqualTo(RateLimitOutcome.Kind.FAILED_OPEN);
			kinds.add(enforce(this.enforcer, other, "client", 1).kind());
		}
		assertThat(kinds.stream().filter((kind) -> kind == RateLimitOutcome.Kind.ALLOWED)).hasSize(20);
		assertThat(kinds.stream().filter((kind) -> kind == RateLimitOutcome.Kind.DENIED)).hasSize(40);
		assertThat(this.breaker.isOpen()).isFalse();
		assertThat(this.skipped).hasValue(0);
	}

	@Test
	void redisDownOpensTheBreakerAtTheThresholdAndASuccessfulProbeClosesIt() throws InterruptedException {
		connect(TIMEOUT);
		PolicyDefinition policy = policy("down", "1000/1h");
		// a fresh JVM's first calls may outlast the short budget: not the decision this test is about
		warmUp(policy);
		assertThat(enforce(this.enforcer, policy, "client", 1).kind()).isEqualTo(RateLimitOutcome.Kind.ALLOWED);
		// let the success leave the window, so that the count below is of failures alone
		Thread.sleep(1100);
		this.redis.stop();
		Thread.sleep(200);
		for (int i = 0; i < 9; i++) {
			assertThat(enforce(this.enforcer, policy, "client", 1).kind()).isEqualTo(RateLimitOutcome.Kind.FAILED_OPEN);
		}
		assertThat(this.breaker.isOpen()).as("9 failures: below the minimum of 10 calls").isFalse();
		assertThat(this.skipped).hasValue(0);
		enforce(this.enforcer, policy, "client", 1);
		assertThat(this.breaker.isOpen()).as("10 failures of 10 calls").isTrue();
		assertThat(this.breaker.lastError()).hasMessageContaining("Redis");
		enforce(this.enforcer, policy, "client", 1);
		assertThat(this.skipped).as("skipped while open").hasValue(1);
		this.redis.restart();
		for (int i = 0; i < 300 && this.breaker.isOpen(); i++) {
			enforce(this.enforcer, policy, "client", 1);
			Thread.sleep(100);
		}
		assertThat(this.breaker.isOpen()).as("a probe closed it within 30 s of Redis coming back").isFalse();
		// Redis came back empty: a fresh bucket
		assertThat(this.backend.create(policy.defaultPlan().policy()).peek("client").remaining()).isGreaterThanOrEqualTo(998);
	}

	/**
	 * Stalls Redis ({@code DEBUG SLEEP}) for each length in turn, a second apart, until a call of the policy failed:
	 * on a busy machine a decision's timer that fires late gives the reply the call's whole timeout again (as after a
	 * GC pause), so a short stall may fail no call at all.
	 * @return each stall, as a call from its start to its end
	 */
	private List<Call> stallUntilACallFails(PolicyDefinition policy, String... seconds) throws InterruptedException {
		List<Call> stalls = new ArrayList<>();
		for (String length : seconds) {
			long start = System.nanoTime();
			redisCommand("DEBUG", "SLEEP", length);
			stalls.add(new Call(start, System.nanoTime(), RateLimitOutcome.Kind.FAILED_OPEN));
			Thread.sleep(1000);
			if (this.failedCalls.containsKey(policy.name())) {
				break;
			}
		}
		return stalls;
	}

	private static boolean duringAny(Call call, List<Call> stalls) {
		return stalls.stream().anyMatch((stall) -> call.overlaps(stall.start(), stall.end()));
	}

	/**
	 * Decides until 200 decisions in a row succeed, on the limiter itself, so that the breaker hears nothing of the
	 * first (slow) calls of a fresh JVM.
	 */
	private static void warmUp(PolicyDefinition policy) {
		int succeeded = 0;
		for (int i = 0; i < 10_000 && succeeded < 200; i++) {
			try {
				policy.defaultPlan().limiter().tryAcquire("warm-up");
				succeeded++;
			}
			catch (RuntimeException ex) {
				succeeded = 0;
			}
		}
		assertThat(succeeded).as("decisions in a row before the load").isEqualTo(200);
	}

	/**
	 * A leased policy whose leases last 200 ms (adaptive batches of at most 1000): a lease covers about 100 ms of its
	 * key's requests, so that a longer stall runs it out and requests wait for the renewal in flight.
	 */
	private PolicyDefinition leased(String name, String limit) {
		Policy policy = Policy.of(name, Algorithm.TOKEN_BUCKET, limit);
		LeasedRateLimiter limiter = new LeasedRateLimiter(this.backend.create(policy),
				new LeaseSettings(1000, true, Duration.ofMillis(200)));
		return PolicyDefinition.of(policy, limiter, "ip", (request) -> null, List.of(), List.of(), Set.of(), 1,
				FailureMode.OPEN, false);
	}

	private PolicyDefinition policy(String name, String limit) {
		Policy policy = Policy.of(name, Algorithm.TOKEN_BUCKET, limit);
		return PolicyDefinition.of(policy, this.backend.create(policy), "ip", (request) -> null, List.of(), List.of(),
				Set.of(), 1, FailureMode.OPEN, false);
	}

	private void redisCommand(String command, String... arguments) {
		try (RedisConnection connection = this.admin.getConnection()) {
			connection.execute(command, Arrays.stream(arguments).map(String::getBytes).toArray(byte[][]::new));
		}
	}

	private record Call(long start, long end, RateLimitOutcome.Kind kind) {

		/** Whether the call was in flight at some moment between the two times. */
		boolean overlaps(long from, long to) {
			return this.start <= to && this.end >= from;
		}

	}

}
