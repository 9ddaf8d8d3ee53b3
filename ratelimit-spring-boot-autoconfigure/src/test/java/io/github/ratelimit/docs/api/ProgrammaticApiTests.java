package io.github.ratelimit.docs.api;

import java.time.Clock;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.Policy;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.core.WaitingRateLimiter;
import io.github.ratelimit.core.lease.LeaseSettings;
import io.github.ratelimit.core.lease.LeaseStats;
import io.github.ratelimit.core.lease.LeasedRateLimiter;
import io.github.ratelimit.core.memory.InMemoryRateLimiterBackend;
import io.github.ratelimit.redis.RedisRateLimiterBackend;
import io.github.ratelimit.test.TestRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The programmatic API page's examples, run on a real Redis and in memory.
 */
class ProgrammaticApiTests {

	private final LettuceConnectionFactory lettuce = TestRedis.get().newConnectionFactory();

	private final String apiKey = "docs-api-" + UUID.randomUUID();

	@AfterEach
	void stopRedis() {
		this.lettuce.destroy();
	}

	@Test
	void redisBackendDecidesPeeksAndResets() {
		RedisConnectionFactory connectionFactory = this.lettuce;
		String apiKey = this.apiKey;
		Duration timeout = TestRedis.TIMEOUT; // 100 ms in production; generous for a busy test machine
		// tag::redis[]
		RedisRateLimiterBackend backend = new RedisRateLimiterBackend(connectionFactory, "ratelimit", timeout);
		backend.start(); // connect and load the scripts now rather than on the first decision
		RateLimiter limiter = backend.create(Policy.of("orders", Algorithm.TOKEN_BUCKET, "10/1m", "500/1d"));

		Decision decision = limiter.tryAcquire(apiKey); // or tryAcquire(apiKey, permits)
		if (!decision.allowed()) {
			Duration retryAfter = decision.retryAfter(); // and limit(), remaining(), resetAfter()
		}
		Decision state = limiter.peek(apiKey); // the state, consuming nothing
		limiter.reset(apiKey); // forget this client
		CompletionStage<Decision> later = limiter.tryAcquireAsync(apiKey, 1); // the same, without blocking

		backend.close();
		// end::redis[]
		assertThat(decision.allowed()).isTrue();
		assertThat(state.remaining()).isEqualTo(9);
		assertThat(later.toCompletableFuture().join().remaining()).isEqualTo(9);
	}

	@Test
	void costAboveCapacityIsNeverSatisfiable() {
		try (RedisRateLimiterBackend backend = new RedisRateLimiterBackend(this.lettuce, "ratelimit",
				TestRedis.TIMEOUT)) {
			RateLimiter limiter = backend.create(Policy.of("orders", Algorithm.TOKEN_BUCKET, "10/1m", "500/1d"));
			Decision decision = limiter.tryAcquire(this.apiKey, 11);
			assertThat(decision.allowed()).isFalse();
			assertThat(decision.satisfiable()).isFalse();
			assertThat(decision.retryAfter()).isEqualTo(Duration.ofMinutes(1));
		}
	}

	@Test
	void inMemoryBackendDecidesTheSameAlgorithms() {
		String customerId = this.apiKey;
		// tag::in-memory[]
		InMemoryRateLimiterBackend backend = new InMemoryRateLimiterBackend(Clock.systemUTC(), "ratelimit", 100_000);
		RateLimiter limiter = backend.create(Policy.of("exports", Algorithm.GCRA, "5/1h"));
		Decision decision = limiter.tryAcquire(customerId, 5); // all five at once
		// end::in-memory[]
		assertThat(decision.allowed()).isTrue();
		assertThat(limiter.tryAcquire(customerId).allowed()).isFalse();
		assertThat(backend.evictions()).isZero();
	}

	@Test
	void leasedLimiterTakesPermitsInBatches() {
		try (RedisRateLimiterBackend backend = new RedisRateLimiterBackend(this.lettuce, "ratelimit",
				TestRedis.TIMEOUT)) {
			Policy policy = Policy.of("search-" + this.apiKey, Algorithm.FIXED_WINDOW, "6000/1m");
			// tag::leased[]
			LeasedRateLimiter leased = new LeasedRateLimiter(backend.create(policy),
					new LeaseSettings(60, true, Duration.ofSeconds(1))); // batch, adaptive, max-age
			// from the lease in hand, a new lease from Redis, or exactly while a lease would not pay (a key's first
			// request, or a key too cold for its lease to cover more than that request)
			Decision decision = leased.tryAcquire("all");
			LeaseStats stats = leased.stats(); // renewals(), leaseHits(), decidedExactly(), permitsHeld(), ...
			leased.close(); // a fixed window's unused permits go back; after it every request is decided exactly
			// end::leased[]
			assertThat(decision.allowed()).isTrue();
			assertThat(stats.decidedExactly()).as("its first request: no rate known yet").isEqualTo(1);
		}
	}

	@Test
	void waitingLimiterWaitsForItsPermit() throws Exception {
		try (RedisRateLimiterBackend backend = new RedisRateLimiterBackend(this.lettuce, "ratelimit",
				TestRedis.TIMEOUT)) {
			Policy policy = Policy.of("partner-" + this.apiKey, Algorithm.TOKEN_BUCKET, "5/1s");
			long start = System.nanoTime(); // before the first permit
			// tag::waiting[]
			WaitingRateLimiter partner = new WaitingRateLimiter(backend.create(policy));
			Decision decision = partner.acquire("partner-api", 1, Duration.ofSeconds(2)); // waits up to 2 s
			if (decision.allowed()) {
				// call the partner: at most 5 calls a second across every instance
			}
			CompletableFuture<Decision> later = partner.acquireAsync("partner-api", 1, Duration.ofSeconds(2));
			// end::waiting[]
			assertThat(decision.allowed()).isTrue();
			assertThat(later.get(30, TimeUnit.SECONDS).allowed()).isTrue();
			for (int i = 0; i < 5; i++) {
				assertThat(partner.acquire("partner-api", 1, Duration.ofSeconds(10)).allowed()).isTrue();
			}
			// 7 permits of a full bucket of 5 refilled 5 a second: the 7th comes 400 ms after the first
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(350));
			assertThat(partner.acquire("partner-api", 6, Duration.ofSeconds(10)).satisfiable()).isFalse();
		}
	}

}
