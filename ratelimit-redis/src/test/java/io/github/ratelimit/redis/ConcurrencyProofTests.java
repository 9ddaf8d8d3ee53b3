package io.github.ratelimit.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.Limit;
import io.github.ratelimit.core.Policy;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.test.Hammer;
import io.github.ratelimit.test.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The product's claim under real concurrency: 8 independent limiter instances, each with its own connection factory
 * as 8 app servers would have, times 16 threads, on one key of one Redis, admit exactly the limit. Beside it, the race
 * that a read-then-write limiter has under the same load, with every read landing inside the others' gaps.
 * Multi-limit policies are exact too when their second limit is the one that binds. The limits that must not be
 * refilled while a test runs are an hour or more, their windows begun at the test.
 */
class ConcurrencyProofTests {

	private static final int INSTANCES = 8;

	private static final int THREADS_PER_INSTANCE = 16;

	private static final int ATTEMPTS_PER_THREAD = 10;

	private static final Limit LIMIT = Limit.parse("100/1h");

	private static final List<LettuceConnectionFactory> servers = new ArrayList<>();

	@BeforeAll
	static void startServers() {
		for (int i = 0; i < INSTANCES; i++) {
			servers.add(TestRedis.get().newConnectionFactory());
		}
	}

	@AfterAll
	static void stopServers() {
		servers.forEach(LettuceConnectionFactory::destroy);
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void eightInstancesOfSixteenThreadsAdmitExactlyTheLimit(Algorithm algorithm) throws Exception {
		Limit limit = RedisTime.startedWindow(new StringRedisTemplate(servers.get(0)), LIMIT.toString());
		Policy policy = new Policy("race-" + UUID.randomUUID(), algorithm, List.of(limit));
		List<RateLimiter> instances = servers.stream()
			.map((server) -> new RedisRateLimiterBackend(server, "ratelimit", TestRedis.TIMEOUT).create(policy))
			.toList();
		int admitted = hammer((instance, key) -> instances.get(instance).tryAcquire(key).allowed());
		assertThat(admitted).isEqualTo(100);
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void theSecondLimitBindsExactlyOnceTheFirstHasRefilledPastIt(Algorithm algorithm) throws Exception {
		Limit perSecond = Limit.parse("10/1s");
		Limit perHour = RedisTime.startedWindow(new StringRedisTemplate(servers.get(0)), "25/1h");
		Policy policy = new Policy("race-" + UUID.randomUUID(), algorithm, List.of(perSecond, perHour));
		List<RateLimiter> instances = servers.stream()
			.map((server) -> new RedisRateLimiterBackend(server, "ratelimit", TestRedis.TIMEOUT).create(policy))
			.toList();
		String key = "client-" + UUID.randomUUID();
		// every thread asks again while only 10/1s refuses it, which refills within seconds, and stops once 25/1h
		// refuses: the span is as long as the first limit needs to let more than 25 through, so the second binds
		// (all stop too once more than 25 are admitted, so a second limit that never binds fails fast)
		AtomicInteger admittedSoFar = new AtomicInteger();
		int admitted = Hammer.admitted(INSTANCES, THREADS_PER_INSTANCE, (instance) -> {
			int admittedByThread = 0;
			while (admittedSoFar.get() <= perHour.capacity()) {
				Decision decision = instances.get(instance).tryAcquire(key);
				if (decision.allowed()) {
					admittedByThread++;
					admittedSoFar.incrementAndGet();
				}
				else if (decision.violated().contains(perHour)) {
					break;
				}
				else {
					assertThat(decision.violated()).containsExactly(perSecond);
					Thread.sleep(Math.max(1, Math.min(50, decision.retryAfter().toMillis())));
				}
			}
			return admittedByThread;
		});
		assertThat(admitted).isEqualTo(25);
		Decision refused = instances.get(0).tryAcquire(key);
		assertThat(refused.allowed()).isFalse();
		assertThat(refused.limit()).isEqualTo(perHour);
	}

	@Test
	void naiveReadThenWriteTokenBucketAdmitsEveryRequestWhenReadsLandInEachOthersGaps() throws Exception {
		// every thread is held between its read and its write until all have read, as a busy network may hold them:
		// each round of 128 requests then reads the same tokens, and after ten rounds some 90 are still left
		CyclicBarrier everyoneHasRead = new CyclicBarrier(INSTANCES * THREADS_PER_INSTANCE);
		List<NaiveTokenBucket> instances = servers.stream()
			.map((server) -> new NaiveTokenBucket(new StringRedisTemplate(server), LIMIT,
					() -> everyoneHasRead.await(30, TimeUnit.SECONDS)))
			.toList();
		int admitted = hammer((instance, key) -> instances.get(instance).tryAcquire(key));
		assertThat(admitted).isEqualTo(INSTANCES * THREADS_PER_INSTANCE * ATTEMPTS_PER_THREAD);
	}

	/**
	 * Sends {@code INSTANCES x THREADS_PER_INSTANCE x ATTEMPTS_PER_THREAD} requests for one new key, all threads
	 * released at once, and counts the admissions.
	 */
	private static int hammer(KeyedAttempt attempt) throws Exception {
		String key = "client-" + UUID.randomUUID();
		return Hammer.admitted(INSTANCES, THREADS_PER_INSTANCE, ATTEMPTS_PER_THREAD,
				(instance) -> attempt.admit(instance, key));
	}

	@FunctionalInterface
	private interface KeyedAttempt {

		boolean admit(int instance, String key) throws Exception;

	}

	/**
	 * What the seeds warn against: a token bucket that reads its state (HMGET), decides in the application on the
	 * application's clock, and writes the result back (HSET). Between one server's read and its write, others read
	 * the same tokens and admit against them too. The test decides how long that gap lasts.
	 */
	static final class NaiveTokenBucket {

		private final StringRedisTemplate redis;

		private final Limit limit;

		private final Gap gap;

		NaiveTokenBucket(StringRedisTemplate redis, Limit limit, Gap gap) {
			this.redis = redis;
			this.limit = limit;
			this.gap = gap;
		}

		boolean tryAcquire(String key) throws Exception {
			String redisKey = "naive:" + key;
			List<Object> state = this.redis.opsForHash().multiGet(redisKey, List.of("tokens", "time"));
			this.gap.pass();
			long now = System.currentTimeMillis();
			double tokens = this.limit.capacity();
			if (state.get(0) != null) {
				double perMilli = (double) this.limit.capacity() / this.limit.period().toMillis();
				long elapsed = now - Long.parseLong((String) state.get(1));
				tokens = Math.min(this.limit.capacity(),
						Double.parseDouble((String) state.get(0)) + elapsed * perMilli);
			}
			if (tokens < 1) {
				return false;
			}
			this.redis.opsForHash()
				.putAll(redisKey, Map.of("tokens", Double.toString(tokens - 1), "time", Long.toString(now)));
			return true;
		}

	}

	/**
	 * What happens between a naive limiter's read and its write.
	 */
	@FunctionalInterface
	private interface Gap {

		void pass() throws Exception;

	}

}
