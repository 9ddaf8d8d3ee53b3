package io.github.ratelimit.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.core.Policy;
import io.github.ratelimit.core.RateLimiterBackend;
import io.github.ratelimit.core.lease.LeaseSettings;
import io.github.ratelimit.core.lease.LeaseStats;
import io.github.ratelimit.core.lease.LeasedRateLimiter;
import io.github.ratelimit.core.memory.InMemoryRateLimiterBackend;
import io.github.ratelimit.test.TestRedis;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One hot leased key under sixteen threads for a minute on each backend whose lease calls answer on the calling
 * thread, Redis through Jedis and the in-memory backend, side by side: every request is answered, each lease serving
 * several. Renewals nested on the caller's stack wedged
 * such a key within seconds (a swallowed stack overflow left its renewal in flight for good; 5 of 5 runs, 3–5 s); the
 * deterministic proof of the cause is {@code LeasedRateLimiterTests}.
 */
class LeasedHotKeyTests {

	private static final Duration RUN = Duration.ofMinutes(1);

	/** A request unanswered this long is taken as never to be: a wedged key is forever, a slow machine is not. */
	private static final Duration ANSWER_BOUND = Duration.ofSeconds(20);

	private static final int THREADS = 16;

	@Test
	void sixteenThreadsOnOneLeasedKeyAreAllAnsweredForAMinuteOnJedisAndInMemory() throws Exception {
		TestRedis redis = TestRedis.get();
		JedisConnectionFactory jedis = new JedisConnectionFactory(
				new RedisStandaloneConfiguration(redis.host(), redis.port()));
		jedis.afterPropertiesSet();
		jedis.start();
		ExecutorService threads = Executors.newFixedThreadPool(2 * THREADS);
		try (RedisRateLimiterBackend redisBackend = new RedisRateLimiterBackend(jedis, "hot-" + System.nanoTime(),
				TestRedis.TIMEOUT)) {
			redisBackend.start();
			assertThat(redisBackend.blocking()).as("Jedis answers on the calling thread").isTrue();
			CountDownLatch start = new CountDownLatch(1);
			long end = System.nanoTime() + RUN.toNanos();
			HotKey onJedis = new HotKey("jedis", redisBackend);
			HotKey inMemory = new HotKey("in-memory", new InMemoryRateLimiterBackend());
			List<Future<?>> load = new ArrayList<>();
			for (HotKey hotKey : List.of(onJedis, inMemory)) {
				for (int i = 0; i < THREADS; i++) {
					load.add(threads.submit(() -> hotKey.hammer(start, end)));
				}
			}
			start.countDown();
			for (Future<?> thread : load) {
				thread.get(RUN.plus(ANSWER_BOUND).plusMinutes(1).toMillis(), TimeUnit.MILLISECONDS);
			}
			for (HotKey hotKey : List.of(onJedis, inMemory)) {
				hotKey.check();
			}
		}
		finally {
			threads.shutdownNow();
			jedis.destroy();
		}
	}

	/**
	 * One backend's leased limiter and what its threads saw.
	 */
	private static final class HotKey {

		private final String name;

		private final LeasedRateLimiter limiter;

		private final AtomicLong answered = new AtomicLong();

		private final AtomicLong admitted = new AtomicLong();

		private final AtomicLong longest = new AtomicLong();

		HotKey(String name, RateLimiterBackend backend) {
			this.name = name;
			this.limiter = new LeasedRateLimiter(backend.create(Policy.of("hot", Algorithm.TOKEN_BUCKET, "1000000000/1h")),
					new LeaseSettings(10, false, Duration.ofSeconds(1)));
		}

		void hammer(CountDownLatch start, long end) {
			try {
				start.await();
				while (System.nanoTime() - end < 0) {
					long asked = System.nanoTime();
					boolean allowed = this.limiter.tryAcquireAsync("hot", 1)
						.toCompletableFuture()
						.get(ANSWER_BOUND.toMillis(), TimeUnit.MILLISECONDS)
						.allowed();
					// from the call, not from its return: the call that starts a renewal must not renew for the others
					long took = System.nanoTime() - asked;
					this.longest.accumulateAndGet(took, Math::max);
					if (took > ANSWER_BOUND.toNanos()) {
						throw new TimeoutException("answered after " + Duration.ofNanos(took));
					}
					this.answered.incrementAndGet();
					this.admitted.addAndGet(allowed ? 1 : 0);
				}
			}
			catch (TimeoutException ex) {
				throw new AssertionError(this.name + ": a request unanswered for " + ANSWER_BOUND + " after "
						+ this.answered + " answered; the key is wedged", ex);
			}
			catch (Exception ex) {
				throw new AssertionError(this.name + ": a request failed", ex);
			}
		}

		void check() {
			LeaseStats stats = this.limiter.stats();
			System.out.printf("[leased-hot-key] %s: %d requests answered in %s by %d renewals, the longest in %s%n",
					this.name, this.answered.get(), RUN, stats.renewals(), Duration.ofNanos(this.longest.get()));
			assertThat(this.admitted.get()).as(this.name + ": every request admitted (a billion an hour)")
				.isEqualTo(this.answered.get());
			assertThat(this.answered.get()).as(this.name + ": answered many, not a few").isGreaterThan(10_000);
			assertThat(stats.renewals() * 5).as(this.name + ": a lease of 10 serves several requests")
				.isLessThanOrEqualTo(this.answered.get());
			this.limiter.close();
		}

	}

}
