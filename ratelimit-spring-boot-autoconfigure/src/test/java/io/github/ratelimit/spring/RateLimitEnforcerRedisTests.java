package io.github.ratelimit.spring;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.core.Policy;
import io.github.ratelimit.core.resilience.CircuitBreaker;
import io.github.ratelimit.core.resilience.DenyCache;
import io.github.ratelimit.redis.RedisRateLimiterBackend;
import io.github.ratelimit.spring.metrics.RateLimitMetrics;
import io.github.ratelimit.test.TestRedis;
import io.github.ratelimit.test.TestRedis.EmbeddedRedis;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The enforcer's deny cache and Redis' late answers, on a Redis server of the test's own with real threads: a client
 * flooding past its limit costs one Redis call per expiry of its deny cache entry; Redis' answer to a decision that
 * timed out (Redis stalled with {@code CLIENT PAUSE} past the decision timeout) is still taken when it comes.
 */
class RateLimitEnforcerRedisTests {

	private static final Duration MAX_AGE = Duration.ofMillis(400);

	private static EmbeddedRedis redis;

	private static LettuceConnectionFactory connectionFactory;

	/** A backend whose decisions never time out on a busy machine. */
	private static RedisRateLimiterBackend backend;

	/** A backend of the default decision timeout. */
	private static RedisRateLimiterBackend timingOut;

	@BeforeAll
	static void start() {
		redis = EmbeddedRedis.start(TestRedis.freePort());
		connectionFactory = redis.newConnectionFactory();
		backend = new RedisRateLimiterBackend(connectionFactory, "generous", TestRedis.TIMEOUT);
		backend.start();
		timingOut = new RedisRateLimiterBackend(connectionFactory, "timing-out", Duration.ofMillis(100));
		timingOut.start();
	}

	@AfterAll
	static void stop() {
		backend.close();
		timingOut.close();
		connectionFactory.destroy();
		redis.stop();
	}

	/**
	 * When the client's entry ages out, one request asks Redis again while its other requests are still refused
	 * from it: one call per expiry on each instance, never two at once.
	 */
	@Test
	void aFloodingClientCostsOneRedisCallPerExpiryAndNeverTwoAtOnce() throws Exception {
		CountedCalls limiter = new CountedCalls(backend.create(Policy.of("flood", Algorithm.TOKEN_BUCKET, "1/1h")));
		PolicyDefinition policy = PolicyDefinition.of(limiter.policy(), limiter, "ip", (request) -> null, List.of(),
				List.of(), Set.of(), 1, FailureMode.OPEN, false);
		RateLimitEnforcer enforcer = new RateLimitEnforcer(List.of(), backend, new CircuitBreaker(),
				new DenyCache(100, MAX_AGE), 1);
		int threads = 8;
		ExecutorService flood = Executors.newFixedThreadPool(threads);
		CountDownLatch go = new CountDownLatch(1);
		Set<RateLimitOutcome.Kind> kinds = ConcurrentHashMap.newKeySet();
		List<Future<?>> connections = new ArrayList<>();
		for (int i = 0; i < threads; i++) {
			connections.add(flood.submit(() -> {
				go.await();
				long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
				while (System.nanoTime() - end < 0) {
					kinds.add(enforce(enforcer, policy));
				}
				return null;
			}));
		}
		assertThat(enforce(enforcer, policy)).isEqualTo(RateLimitOutcome.Kind.ALLOWED);
		assertThat(enforce(enforcer, policy)).isEqualTo(RateLimitOutcome.Kind.DENIED);
		limiter.calls.set(0);
		long start = System.nanoTime();
		go.countDown();
		for (Future<?> connection : connections) {
			connection.get(30, TimeUnit.SECONDS);
		}
		long elapsed = System.nanoTime() - start;
		flood.shutdown();
		assertThat(kinds).containsOnly(RateLimitOutcome.Kind.DENIED);
		assertThat(limiter.mostAtOnce).as("Redis calls in flight at once (%d calls in %d ms)", limiter.calls.get(),
				TimeUnit.NANOSECONDS.toMillis(elapsed)).hasValue(1);
		assertThat(limiter.calls.get()).as("Redis calls in %d ms", TimeUnit.NANOSECONDS.toMillis(elapsed))
			.isBetween(1, (int) (elapsed / MAX_AGE.toNanos()) + 1);
	}

	/**
	 * A refusal is remembered by the deny cache, and a request the failure mode admitted that it refused is counted
	 * in {@value RateLimitMetrics#LATE_REFUSALS}.
	 */
	@Test
	void aLateRefusalOfARequestFailedOpenIsRememberedAndCounted() throws Exception {
		CountedCalls limiter = new CountedCalls(timingOut.create(Policy.of("late", Algorithm.TOKEN_BUCKET, "1/1h")));
		PolicyDefinition policy = PolicyDefinition.of(limiter.policy(), limiter, "ip", (request) -> null, List.of(),
				List.of(), Set.of(), 1, FailureMode.OPEN, false);
		SimpleMeterRegistry registry = new SimpleMeterRegistry();
		CompletableFuture<RateLimitOutcome> refusedLate = new CompletableFuture<>();
		RateLimitEnforcer enforcer = new RateLimitEnforcer(List.of(new RateLimitMetrics(registry),
				new RateLimitRecorder() {

					@Override
					public void record(RateLimitOutcome outcome, long backendNanos) {
					}

					@Override
					public void refusedLate(RateLimitOutcome outcome) {
						refusedLate.complete(outcome);
					}

				}), timingOut, new CircuitBreaker(), new DenyCache(100, Duration.ofSeconds(30)), 1);
		assertThat(enforce(enforcer, policy)).isEqualTo(RateLimitOutcome.Kind.ALLOWED);
		stall(Duration.ofMillis(1500));
		assertThat(enforce(enforcer, policy)).isEqualTo(RateLimitOutcome.Kind.FAILED_OPEN);
		assertThat(refusedLate.get(30, TimeUnit.SECONDS).kind()).isEqualTo(RateLimitOutcome.Kind.FAILED_OPEN);
		assertThat(registry.get(RateLimitMetrics.LATE_REFUSALS)
			.tag("policy", "late")
			.tag("plan", "none")
			.tag("outcome", "failed-open")
			.counter()
			.count()).isEqualTo(1);
		assertThat(limiter.calls).hasValue(2);
		assertThat(enforce(enforcer, policy)).isEqualTo(RateLimitOutcome.Kind.DENIED);
		assertThat(limiter.calls).as("Redis calls: the late refusal answers from the deny cache").hasValue(2);
	}

	private static RateLimitOutcome.Kind enforce(RateLimitEnforcer enforcer, PolicyDefinition policy) {
		return enforcer.enforceAsync(policy, policy.defaultPlan(), "client", 1)
			.toCompletableFuture()
			.orTimeout(30, TimeUnit.SECONDS)
			.join()
			.kind();
	}

	/**
	 * Stalls the test's Redis from a connection of its own: {@code CLIENT PAUSE} answers at once and holds every
	 * other client's commands for its duration.
	 */
	private static void stall(Duration duration) {
		try (RedisConnection connection = connectionFactory.getConnection()) {
			connection.execute("CLIENT", "PAUSE".getBytes(), Long.toString(duration.toMillis()).getBytes());
		}
	}

}
