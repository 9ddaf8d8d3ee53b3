package io.github.ratelimit.redis;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;

import io.github.ratelimit.core.AbstractRateLimiterBackendTests;
import io.github.ratelimit.core.AbstractRateLimiterLeaseTests;
import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.core.LeaseGrant;
import io.github.ratelimit.core.Policy;
import io.github.ratelimit.core.StorageKeys;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.core.RateLimiterBackend;
import io.github.ratelimit.test.ManualClock;
import io.github.ratelimit.test.TestRedis;
import io.lettuce.core.cluster.SlotHash;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The shared behavioural suite on a real, standalone Redis, plus what only Redis has: keys, slots and TTLs.
 */
class RedisRateLimiterBackendTests extends AbstractRateLimiterBackendTests {

	private static LettuceConnectionFactory connectionFactory;

	private static RedisRateLimiterBackend backend;

	private static StringRedisTemplate redis;

	@BeforeAll
	static void connect() {
		connectionFactory = TestRedis.get().newConnectionFactory();
		backend = new RedisRateLimiterBackend(connectionFactory, "ratelimit", TestRedis.TIMEOUT);
		redis = new StringRedisTemplate(connectionFactory);
	}

	@AfterAll
	static void disconnect() {
		connectionFactory.destroy();
	}

	@Override
	protected RateLimiterBackend backend() {
		return backend;
	}

	@Override
	protected @Nullable Duration retention(RateLimiter limiter, String key) {
		List<Long> ttls = keysOf(limiter, key).stream().map((redisKey) -> redis.getExpire(redisKey, java.util.concurrent.TimeUnit.MILLISECONDS)).toList();
		assertThat(ttls).as("every key has a TTL").doesNotContain(-1L);
		long longest = ttls.stream().mapToLong(Long::longValue).max().orElse(-2);
		return (longest < 0) ? null : Duration.ofMillis(longest);
	}

	@Override
	protected long clockMicros() {
		return RedisTime.micros(redis);
	}

	@Override
	protected RateLimiterBackend backendAt(ManualClock clock) {
		return SuppliedClockScripts.backend(redis, clock);
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void keysFollowTheLayoutWithTheClientInAHashTag(Algorithm algorithm) {
		Policy policy = new Policy("orders-" + UUID.randomUUID(), algorithm,
				List.of(window(algorithm, "10/1m"), window(algorithm, "100/1h")));
		backend.create(policy).tryAcquire("203.0.113.7");
		Set<String> stored = redis.keys("ratelimit:" + policy.name() + ":*");
		assertThat(stored).containsExactlyInAnyOrder(
				"ratelimit:" + policy.name() + ":" + policy.fingerprint() + ":{203.0.113.7}:0",
				"ratelimit:" + policy.name() + ":" + policy.fingerprint() + ":{203.0.113.7}:1");
	}

	@Test
	void keysWrittenToRedisArePinnedAcrossReleases() {
		// literal keys (StorageKeysTests pins more): a new derivation would split a client's state mid-upgrade; a
		// sliding window's key outlives its window by a period, where a fixed window's written just before its end
		// could be gone before it is read
		String prefix = "pinned-" + UUID.randomUUID();
		try (RedisRateLimiterBackend pinned = new RedisRateLimiterBackend(connectionFactory, prefix,
				TestRedis.TIMEOUT)) {
			pinned.create(Policy.of("orders", Algorithm.TOKEN_BUCKET, "10/1m", "500/1d")).tryAcquire("203.0.113.7");
			pinned.create(Policy.of("search", Algorithm.SLIDING_WINDOW, "1000/1d")).tryAcquire("{a}");
		}
		assertThat(redis.keys(prefix + ":*")).containsExactlyInAnyOrder(prefix + ":orders:d8dd466d:{203.0.113.7}:0",
				prefix + ":orders:d8dd466d:{203.0.113.7}:1",
				prefix + ":search:fd0d7abf:{#460c3a93211614ac783c0f1d1bbbcb45a6da87d6421b5c0771772588f1015ff8}:0");
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void hostileKeysAreStoredInOneSlotPerDecisionAndBoundedInLength(Algorithm algorithm) {
		RateLimiter limiter = limiter(algorithm, window(algorithm, "1/1h"), window(algorithm, "2/1d"));
		for (String client : hostileKeys()) {
			limiter.tryAcquire(client);
			List<String> keys = keysOf(limiter, client);
			Set<Integer> slots = keys.stream().map(SlotHash::getSlot).collect(Collectors.toSet());
			assertThat(slots).as("slots of %s", keys).hasSize(1);
			assertThat(keys).allSatisfy((key) -> {
				assertThat(redis.hasKey(key)).isTrue();
				assertThat(key.getBytes(java.nio.charset.StandardCharsets.UTF_8).length)
					.isLessThanOrEqualTo(limiter.policy().name().length() + 100);
			});
		}
	}

	private static List<String> keysOf(RateLimiter limiter, String client) {
		return new StorageKeys("ratelimit", limiter.policy()).keys(client);
	}

	/**
	 * The shared lease suite on the same standalone Redis.
	 */
	@Nested
	class Leases extends AbstractRateLimiterLeaseTests {

		@Override
		protected RateLimiterBackend backend() {
			return backend;
		}

		@Override
		protected RateLimiterBackend backendAt(ManualClock clock) {
			return SuppliedClockScripts.backend(redis, clock);
		}

		@Override
		protected long clockMicros() {
			return RedisTime.micros(redis);
		}

		@ParameterizedTest
		@EnumSource(value = Algorithm.class, names = { "TOKEN_BUCKET", "GCRA", "FIXED_WINDOW" })
		void leaseWritesTheKeysOfAnExactDecisionWithTheirTtlAtRedisTime(Algorithm algorithm) {
			Policy policy = new Policy("lease-" + UUID.randomUUID(), algorithm,
					List.of(window(algorithm, "10/1m"), window(algorithm, "100/1h")));
			RateLimiter limiter = backend.create(policy);
			long before = RedisTime.micros(redis);
			LeaseGrant grant = limiter.tryLeaseAsync("203.0.113.7", 1, 8).toCompletableFuture().join();
			long after = RedisTime.micros(redis);
			assertThat(grant.granted()).isEqualTo(8);
			assertThat(grant.takenAtMicros()).isBetween(before, after);
			assertThat(redis.keys("ratelimit:" + policy.name() + ":*"))
				.containsExactlyInAnyOrderElementsOf(keysOf(limiter, "203.0.113.7"));
			assertThat(retention(limiter, "203.0.113.7")).isPositive()
				.isLessThanOrEqualTo(policy.limits().get(1).period());
		}

		@Test
		void returnKeepsTheWindowsTtl() {
			RateLimiter limiter = RedisRateLimiterBackendTests.this.limiter(Algorithm.FIXED_WINDOW,
					window(Algorithm.FIXED_WINDOW, "10/1h"));
			LeaseGrant grant = limiter.tryLeaseAsync("client", 1, 8).toCompletableFuture().join();
			Duration leased = retention(limiter, "client");
			assertThat(limiter.returnLeasedAsync("client", grant, 8).toCompletableFuture().join()).isEqualTo(8);
			assertThat(retention(limiter, "client")).isPositive().isLessThanOrEqualTo(leased);
			assertThat(limiter.peek("client").remaining()).isEqualTo(10);
		}

	}

}
