package io.github.ratelimit.redis;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.core.Policy;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.test.TestRedis;
import io.github.ratelimit.test.TestRedis.EmbeddedRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A Redis that does not answer (CLIENT PAUSE on a server of the test's own) cuts decisions short at the decision
 * timeout, blocking and asynchronous alike, however long the client's own command timeout is.
 */
class DecisionTimeoutTests {

	private static final Duration TIMEOUT = Duration.ofMillis(200);

	private static EmbeddedRedis redis;

	private static LettuceConnectionFactory connectionFactory;

	private static RedisRateLimiterBackend backend;

	@BeforeAll
	static void start() {
		redis = EmbeddedRedis.start(TestRedis.freePort());
		connectionFactory = redis.newConnectionFactory();
		backend = new RedisRateLimiterBackend(connectionFactory, "timeout", TIMEOUT);
		backend.start();
	}

	@AfterAll
	static void stop() {
		backend.close();
		connectionFactory.destroy();
		redis.stop();
	}

	@Test
	void pausedRedisCutsBlockingAndAsyncDecisionsShortAtTheTimeout() throws Exception {
		RateLimiter limiter = backend.create(Policy.of("paused", Algorithm.TOKEN_BUCKET, "5/1h"));
		assertThat(limiter.tryAcquire("client").allowed()).isTrue();
		pause(Duration.ofSeconds(3));
		assertThatExceptionOfType(QueryTimeoutException.class).isThrownBy(() -> limiter.tryAcquire("client"))
			.withMessageContaining("200 ms");
		assertThatExceptionOfType(ExecutionException.class)
			.isThrownBy(() -> limiter.tryAcquireAsync("client", 1).toCompletableFuture().get(2, TimeUnit.SECONDS))
			.withCauseInstanceOf(QueryTimeoutException.class);
	}

	private static void pause(Duration duration) {
		try (RedisConnection connection = connectionFactory.getConnection()) {
			connection.execute("CLIENT", "PAUSE".getBytes(), Long.toString(duration.toMillis()).getBytes());
		}
	}

}
