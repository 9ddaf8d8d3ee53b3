package io.github.ratelimit.spring.annotation;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import io.github.ratelimit.autoconfigure.RateLimitAspectAutoConfiguration;
import io.github.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.ratelimit.autoconfigure.RateLimitRedisAutoConfiguration;
import io.github.ratelimit.spring.RateLimitExceededException;
import io.github.ratelimit.test.TestRedis;
import io.github.ratelimit.test.TestRedis.EmbeddedRedis;
import io.github.ratelimit.test.TestRedisProperties;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link RateLimited} on methods returning {@code CompletableFuture} and {@code CompletionStage}: the decision
 * precedes the work without blocking the caller, the method never runs on the Redis client's event loop, and a
 * refusal completes the returned future.
 */
class ReactiveRateLimitedFuturesTests {

	private static final long WAIT_SECONDS = 30;

	/** Long enough that a call that does not wait for Redis surely returns within it on a loaded machine. */
	private static final Duration STALL = Duration.ofSeconds(2);

	private static EmbeddedRedis redis;

	private static LettuceConnectionFactory admin;

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, AopAutoConfiguration.class,
				TaskExecutionAutoConfiguration.class, RateLimitRedisAutoConfiguration.class,
				RateLimitAutoConfiguration.class, RateLimitAspectAutoConfiguration.class))
		.withUserConfiguration(FutureService.class);

	@BeforeAll
	static void startRedis() {
		redis = EmbeddedRedis.start(TestRedis.freePort());
		admin = new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", redis.port()));
		admin.afterPropertiesSet();
		admin.start();
	}

	@AfterAll
	static void stopRedis() {
		try {
			admin.destroy();
		}
		finally {
			redis.stop();
		}
	}

	private ApplicationContextRunner onStallableRedis() {
		return this.contextRunner.withPropertyValues("spring.data.redis.host=127.0.0.1",
				"spring.data.redis.port=" + redis.port(), "ratelimit.key-prefix=" + TestRedisProperties.uniquePrefix(),
				"ratelimit.timeout=" + TestRedis.TIMEOUT.toMillis() + "ms");
	}

	@Test
	void callWhileRedisStallsShouldReturnAPendingFutureAndRunTheMethodOnTheTaskExecutorAfterTheStall() {
		onStallableRedis().run((context) -> {
			FutureService service = context.getBean(FutureService.class);
			// a first decision loads the script: the stall below is the only wait
			assertThat(service.work("warm-up").get(WAIT_SECONDS, TimeUnit.SECONDS)).isEqualTo("warm-up");
			service.invocations().set(0);
			long stallEnds = stall(STALL);
			CompletableFuture<String> call = service.work("stalled");
			assertThat(System.nanoTime()).as("the call returned while Redis stalled").isLessThan(stallEnds);
			assertThat(call).as("not decided while Redis stalls").isNotDone();
			assertThat(service.invocations()).as("the method waits for the decision").hasValue(0);
			assertThat(call.get(WAIT_SECONDS, TimeUnit.SECONDS)).isEqualTo("stalled");
			assertThat(service.invocations()).hasValue(1);
			assertThat(service.thread().get()).as("the method's thread").doesNotContain("lettuce").startsWith("task-");
		});
	}

	@Test
	void refusalShouldCompleteTheFutureExceptionallyWithoutRunningTheMethod() {
		onStallableRedis().run((context) -> {
			FutureService service = context.getBean(FutureService.class);
			assertThat(service.work("k").get(WAIT_SECONDS, TimeUnit.SECONDS)).isEqualTo("k");
			assertThat(service.work("k").get(WAIT_SECONDS, TimeUnit.SECONDS)).isEqualTo("k");
			// decided by Redis, then by the deny cache at once
			assertRefused(service.work("k"));
			assertRefused(service.work("k"));
			assertThat(service.invocations()).hasValue(2);
		});
	}

	@Test
	void completionStageShouldBeLimitedAlike() {
		onStallableRedis().run((context) -> {
			FutureService service = context.getBean(FutureService.class);
			assertThat(service.stage().toCompletableFuture().get(WAIT_SECONDS, TimeUnit.SECONDS)).isEqualTo("stage");
			assertRefused(service.stage().toCompletableFuture());
		});
	}

	@Test
	void decisionCompleteAtOnceShouldRunTheMethodOnTheCallersThreadAndReturnItsFuture() {
		this.contextRunner.withPropertyValues("ratelimit.backend=in-memory").run((context) -> {
			FutureService service = context.getBean(FutureService.class);
			CompletableFuture<String> call = service.work("k");
			assertThat(call).isSameAs(service.returned().get()).isCompletedWithValue("k");
			assertThat(service.thread().get()).isEqualTo(Thread.currentThread().getName());
			service.work("k");
			CompletableFuture<String> refused = service.work("k");
			assertThat(refused).isCompletedExceptionally();
			assertRefused(refused);
			assertThat(service.invocations()).hasValue(2);
		});
	}

	private static void assertRefused(CompletableFuture<?> call) throws Exception {
		Throwable error = call.handle((value, failure) -> failure).get(WAIT_SECONDS, TimeUnit.SECONDS);
		assertThat(error).as("the refusal itself, not wrapped").isInstanceOf(RateLimitExceededException.class);
		assertThat(((RateLimitExceededException) error).getPolicy()).isIn("work", "stage");
	}

	/**
	 * Stalls the test Redis, from a connection of its own: {@code CLIENT PAUSE} answers at once and holds every
	 * other client's commands for its duration (unlike {@code DEBUG SLEEP}, it is known to have begun when it
	 * returns).
	 * @return the earliest {@link System#nanoTime()} at which the stall can end
	 */
	private static long stall(Duration duration) {
		long start = System.nanoTime();
		try (RedisConnection connection = admin.getConnection()) {
			connection.execute("CLIENT", "PAUSE".getBytes(), Long.toString(duration.toMillis()).getBytes(),
					"ALL".getBytes());
		}
		return start + duration.toNanos();
	}

	static class FutureService {

		private final AtomicInteger invocations = new AtomicInteger();

		/** The calls that reached the method: read through the proxy, whose own fields are not the bean's. */
		public AtomicInteger invocations() {
			return this.invocations;
		}

		private final AtomicReference<String> thread = new AtomicReference<>();

		private final AtomicReference<CompletableFuture<String>> returned = new AtomicReference<>();

		/** The name of the thread the method last ran on. */
		public AtomicReference<String> thread() {
			return this.thread;
		}

		/** The future the method last returned. */
		public AtomicReference<CompletableFuture<String>> returned() {
			return this.returned;
		}

		@RateLimited(name = "work", limits = "2/1h", key = "#client")
		public CompletableFuture<String> work(String client) {
			this.invocations.incrementAndGet();
			this.thread.set(Thread.currentThread().getName());
			CompletableFuture<String> result = CompletableFuture.completedFuture(client);
			this.returned.set(result);
			return result;
		}

		@RateLimited(name = "stage", limits = "1/1h")
		public CompletionStage<String> stage() {
			return CompletableFuture.completedFuture("stage");
		}

	}

}
