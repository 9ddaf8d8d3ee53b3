package io.github.ratelimit.redis;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.core.Policy;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.test.TestRedis;
import io.github.ratelimit.test.TestRedis.EmbeddedRedis;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.dao.InvalidDataAccessApiUsageException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * How the Redis backend fails, on a real Redis of the test's own that is stopped, paused and filled up: what its
 * health check catches that a PING would not, what counts as a failure of Redis, and what a caller sees.
 */
class BackendFailureTests {

	/** Longer than any test waits: whatever fails here fails for another reason than the decision timeout. */
	private static final Duration LONG_TIMEOUT = Duration.ofSeconds(20);

	private static EmbeddedRedis redis;

	private static LettuceConnectionFactory admin;

	private static LettuceConnectionFactory connectionFactory;

	private static RedisRateLimiterBackend backend;

	@BeforeAll
	static void start() {
		redis = EmbeddedRedis.start(TestRedis.freePort());
		admin = factory(true);
		connectionFactory = factory(true);
		backend = new RedisRateLimiterBackend(connectionFactory, "failure", LONG_TIMEOUT);
		backend.start();
	}

	@AfterEach
	void restoreRedis() {
		redis.restartIfStopped();
		config("maxmemory", "0");
	}

	@AfterAll
	static void stop() {
		try {
			backend.close();
			connectionFactory.destroy();
			admin.destroy();
		}
		finally {
			redis.stop();
		}
	}

	@Test
	void healthCheckFailsWhenRedisRefusesScriptsAlthoughItAnswersPing() {
		backend.check();
		config("maxmemory", "1");
		try (RedisConnection connection = admin.getConnection()) {
			assertThat(connection.ping()).isEqualTo("PONG");
		}
		Throwable failure = catchThrowable(backend::check);
		assertThat(failure).hasStackTraceContaining("OOM");
		assertThat(backend.isBackendFailure(failure)).isTrue();
		assertThat(backend.isTimeout(failure)).isFalse();
		config("maxmemory", "0");
		backend.check();
	}

	@Test
	void redisDownFailsAtOnceAsAConnectionFailureNotAsATimeout() throws InterruptedException {
		RateLimiter limiter = backend.create(Policy.of("down", Algorithm.TOKEN_BUCKET, "5/1h"));
		assertThat(limiter.tryAcquire("client").allowed()).isTrue();
		redis.stop();
		// time for Lettuce to see the connection close (a command in flight at that moment waits for the reconnection)
		Thread.sleep(500);
		long start = System.nanoTime();
		Throwable failure = catchThrowable(backend::check);
		// with a 20 s decision timeout, anything but a connection failure would have waited for it
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(LONG_TIMEOUT.dividedBy(2));
		assertThat(failure).isInstanceOf(RedisConnectionFailureException.class);
		assertThat(catchThrowable(() -> limiter.tryAcquire("client"))).isInstanceOf(RedisConnectionFailureException.class);
		assertThat(catchThrowable(() -> limiter.tryAcquireAsync("client", 1).toCompletableFuture().join()))
			.isInstanceOf(CompletionException.class)
			.hasCauseInstanceOf(RedisConnectionFailureException.class);
		assertThat(backend.isBackendFailure(failure)).isTrue();
		assertThat(backend.isTimeout(failure)).isFalse();
		redis.restart();
		awaitDecision(limiter);
	}

	/**
	 * A backend whose Redis could not be reached at start-up holds no connection. A decision that must not block (a
	 * WebFlux filter's, on an event loop) does not open one on its caller's thread: it fails at once as a connection
	 * failure while a connection is opened in the background, and once Redis is there, decisions are made.
	 */
	@Test
	void asyncDecisionsOfABackendThatNeverConnectedFailAtOnceAndConnectInTheBackground() throws InterruptedException {
		int port = TestRedis.freePort();
		LettuceConnectionFactory unreachable = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration("127.0.0.1", port));
		unreachable.afterPropertiesSet();
		unreachable.start();
		EmbeddedRedis late = null;
		try (RedisRateLimiterBackend neverConnected = new RedisRateLimiterBackend(unreachable, "late", LONG_TIMEOUT)) {
			neverConnected.start();
			RateLimiter limiter = neverConnected.create(Policy.of("late", Algorithm.TOKEN_BUCKET, "5/1h"));
			CompletableFuture<?> decision = limiter.tryAcquireAsync("client", 1).toCompletableFuture();
			assertThat(decision).as("failed before returning, without waiting for a connection").isCompletedExceptionally();
			assertThat(catchThrowable(decision::join)).hasCauseInstanceOf(RedisConnectionFailureException.class)
				.hasMessageContaining("connecting in the background");
			late = EmbeddedRedis.start(port);
			for (int i = 0; i < 200; i++) {
				CompletableFuture<?> next = limiter.tryAcquireAsync("client", 1).toCompletableFuture();
				if (catchThrowable(next::join) == null) {
					return;
				}
				Thread.sleep(50);
			}
			throw new AssertionError("No decision within 10 s of Redis starting");
		}
		finally {
			unreachable.destroy();
			if (late != null) {
				late.stop();
			}
		}
	}

	@Test
	void interruptedCallerKeepsItsInterruptAndIsNotToldOfATimeout() throws Exception {
		RateLimiter limiter = backend.create(Policy.of("interrupted", Algorithm.TOKEN_BUCKET, "5/1h"));
		assertThat(limiter.tryAcquire("client").allowed()).isTrue();
		AtomicReference<Throwable> thrown = new AtomicReference<>();
		AtomicBoolean stillInterrupted = new AtomicBoolean();
		pause(Duration.ofSeconds(2));
		Thread caller = new Thread(() -> {
			thrown.set(catchThrowable(() -> limiter.tryAcquire("client")));
			stillInterrupted.set(Thread.currentThread().isInterrupted());
		});
		caller.start();
		Thread.sleep(200);
		caller.interrupt();
		caller.join(Duration.ofSeconds(10).toMillis());
		Throwable failure = thrown.get();
		assertThat(stillInterrupted).isTrue();
		assertThat(failure).isInstanceOf(CancellationException.class).hasCauseInstanceOf(InterruptedException.class);
		assertThat(backend.isBackendFailure(failure)).isFalse();
		assertThat(backend.isTimeout(failure)).isFalse();
	}

	@Test
	void aCommandLettuceCancelsIsAFailureOfRedisNotABugOfTheRequest() throws Exception {
		// a backend of its own: resetting a connection whose commands Redis still answers leaves it out of step
		LettuceConnectionFactory own = factory(true);
		try (RedisRateLimiterBackend cancelled = new RedisRateLimiterBackend(own, "cancelled", LONG_TIMEOUT)) {
			cancelled.start();
			RateLimiter limiter = cancelled.create(Policy.of("cancelled", Algorithm.TOKEN_BUCKET, "5/1h"));
			assertThat(limiter.tryAcquire("client").allowed()).isTrue();
			AtomicReference<Throwable> thrown = new AtomicReference<>();
			// decisions paused long enough that none is answered before the reset, however slow the machine; WRITE
			// pauses scripts, and leaves the admin connection free to end the pause
			try (RedisConnection connection = admin.getConnection()) {
				connection.execute("CLIENT", "PAUSE".getBytes(), "60000".getBytes(), "WRITE".getBytes());
			}
			try {
				Thread caller = new Thread(() -> thrown.set(catchThrowable(() -> limiter.tryAcquire("client"))));
				caller.start();
				CompletableFuture<?> async = limiter.tryAcquireAsync("client", 1).toCompletableFuture();
				awaitWaitingForRedis(caller);
				nativeConnection(own).reset();
				caller.join(Duration.ofSeconds(10).toMillis());
				Throwable thrownAsync = catchThrowable(async::join);
				assertThat(thrown.get()).isInstanceOf(RedisConnectionFailureException.class)
					.hasRootCauseInstanceOf(CancellationException.class);
				assertThat(thrownAsync).isInstanceOf(CompletionException.class)
					.hasCauseInstanceOf(RedisConnectionFailureException.class);
				assertThat(cancelled.isBackendFailure(thrown.get())).isTrue();
				assertThat(cancelled.isBackendFailure(thrownAsync)).isTrue();
			}
			finally {
				unpause();
			}
		}
		finally {
			own.destroy();
		}
	}

	@Test
	void timeoutIsABackendFailureAndATimeout() {
		QueryTimeoutException timeout = new QueryTimeoutException("Redis did not answer");
		assertThat(backend.isBackendFailure(timeout)).isTrue();
		assertThat(backend.isTimeout(timeout)).isTrue();
		assertThat(backend.isTimeout(new CompletionException(timeout))).isTrue();
		assertThat(backend.isBackendFailure(new CompletionException(timeout))).isTrue();
	}

	@Test
	void errorsOfOneRequestAreNoBackendFailures() {
		assertThat(backend.isBackendFailure(new ArithmeticException("long overflow"))).isFalse();
		assertThat(backend.isBackendFailure(new IllegalStateException("bug"))).isFalse();
		assertThat(backend.isBackendFailure(new InvalidDataAccessApiUsageException("misuse"))).isFalse();
		assertThat(backend.isBackendFailure(new CompletionException(new IllegalArgumentException("bad key"))))
			.isFalse();
	}

	@Test
	void healthChecksWithoutNativeConnectionSharingOpenNoConnectionEach() {
		LettuceConnectionFactory unshared = factory(false);
		try (RedisRateLimiterBackend own = new RedisRateLimiterBackend(unshared, "unshared", LONG_TIMEOUT)) {
			own.start();
			own.check();
			long before = clients();
			for (int i = 0; i < 50; i++) {
				own.check();
			}
			assertThat(clients()).isLessThanOrEqualTo(before);
		}
		finally {
			unshared.destroy();
		}
	}

	private static void awaitDecision(RateLimiter limiter) throws InterruptedException {
		for (int i = 0; i < 200; i++) {
			try {
				limiter.peek("client");
				return;
			}
			catch (RuntimeException ex) {
				Thread.sleep(50);
			}
		}
		throw new AssertionError("Redis did not answer within 10 s of its restart");
	}

	private static void pause(Duration duration) {
		try (RedisConnection connection = admin.getConnection()) {
			connection.execute("CLIENT", "PAUSE".getBytes(), Long.toString(duration.toMillis()).getBytes());
		}
	}

	private static void unpause() {
		try (RedisConnection connection = admin.getConnection()) {
			connection.execute("CLIENT", "UNPAUSE".getBytes());
		}
	}

	/**
	 * Waits until a thread deciding through the executor waits for Redis' answer (in the core API's one wait, which
	 * it reaches once the executor handed its command to Lettuce), so that a reset of the connection cancels it.
	 */
	private static void awaitWaitingForRedis(Thread caller) throws InterruptedException {
		long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
		while (!waitingInExecutor(caller)) {
			assertThat(System.nanoTime()).as("%s waiting for Redis' answer", caller.getName()).isLessThan(deadline);
			Thread.sleep(10);
		}
	}

	private static boolean waitingInExecutor(Thread thread) {
		Thread.State state = thread.getState();
		List<String> frames = Arrays.stream(thread.getStackTrace()).map(StackTraceElement::getClassName).toList();
		return (state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING)
				&& frames.contains(CompletableFuture.class.getName())
				&& frames.contains("io.github.ratelimit.core.Waiting");
	}

	/** A factory's shared native connection, which a backend's decisions use. */
	private static StatefulConnection<?, ?> nativeConnection(LettuceConnectionFactory factory) {
		try (RedisConnection connection = factory.getConnection()) {
			return ((RedisAsyncCommands<?, ?>) connection.getNativeConnection()).getStatefulConnection();
		}
	}

	private static long clients() {
		try (RedisConnection connection = admin.getConnection()) {
			return connection.serverCommands().getClientList().size();
		}
	}

	private static void config(String name, String value) {
		try (RedisConnection connection = admin.getConnection()) {
			connection.serverCommands().setConfig(name, value);
		}
	}

	private static LettuceConnectionFactory factory(boolean shared) {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration("127.0.0.1", redis.port()));
		factory.setShareNativeConnection(shared);
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

}
