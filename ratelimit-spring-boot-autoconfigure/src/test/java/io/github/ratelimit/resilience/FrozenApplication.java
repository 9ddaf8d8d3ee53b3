package io.github.ratelimit.resilience;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import io.github.ratelimit.autoconfigure.RateLimitProperties;
import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.core.Policy;
import io.github.ratelimit.core.resilience.CircuitBreaker;
import io.github.ratelimit.redis.RedisRateLimiterBackend;
import io.github.ratelimit.spring.FailureMode;
import io.github.ratelimit.spring.PolicyDefinition;
import io.github.ratelimit.spring.RateLimitEnforcer;
import io.github.ratelimit.spring.RateLimitOutcome;
import io.github.ratelimit.spring.RateLimitRecorder;
import io.github.ratelimit.test.CommandedJvm;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * An application in a JVM of its own, which the test freezes and thaws with {@code SIGSTOP} and {@code SIGCONT} as a
 * GC pause or CPU throttling would: several threads decide one client of one policy on Redis in a loop, with the
 * default decision timeout and failure mode (open) and no deny cache (so that every request asks Redis, and many are
 * in flight whenever the process is frozen). The test starts the loop, stops it, and reads what was admitted.
 */
final class FrozenApplication implements AutoCloseable {

	private final CommandedJvm jvm;

	private FrozenApplication(CommandedJvm jvm) {
		this.jvm = jvm;
	}

	/**
	 * Starts the application, connected and ready to decide.
	 * @param host Redis' host
	 * @param port Redis' port
	 * @param keyPrefix the key prefix of its policy
	 * @param limit the policy's one limit
	 * @param threads how many threads decide
	 * @return the application
	 */
	static FrozenApplication start(String host, int port, String keyPrefix, String limit, int threads)
			throws IOException {
		FrozenApplication application = new FrozenApplication(CommandedJvm.start(
				CommandedJvm.javaCommand(List.of(), FrozenApplication.class.getName(), host, Integer.toString(port),
						keyPrefix, limit, Integer.toString(threads)),
				Path.of("target", "frozen-application.log")));
		application.jvm.ask("ready");
		return application;
	}

	long pid() {
		return this.jvm.pid();
	}

	/** Starts the deciding threads. */
	void decide() {
		this.jvm.ask("decide");
	}

	/**
	 * Stops the deciding threads, once each has its last decision.
	 * @return the counts of requests by outcome
	 */
	Counts stop() {
		String[] fields = this.jvm.ask("stop").split(" ");
		return new Counts(Long.parseLong(fields[0]), Long.parseLong(fields[1]), Long.parseLong(fields[2]),
				Long.parseLong(fields[3]));
	}

	@Override
	public void close() throws InterruptedException {
		this.jvm.close();
	}

	/**
	 * The application's requests.
	 * @param allowed admitted by Redis
	 * @param failedOpen admitted by the failure mode, Redis' answer not read in time
	 * @param denied refused by Redis
	 * @param refusedLate of those failed open, the ones Redis' late answer refused
	 */
	record Counts(long allowed, long failedOpen, long denied, long refusedLate) {

		long admitted() {
			return this.allowed + this.failedOpen;
		}

	}

	/**
	 * The application's side.
	 * @param arguments Redis host and port, key prefix, limit and threads
	 */
	public static void main(String[] arguments) throws Throwable {
		LettuceConnectionFactory connectionFactory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(arguments[0], Integer.parseInt(arguments[1])));
		connectionFactory.afterPropertiesSet();
		connectionFactory.start();
		RedisRateLimiterBackend backend = new RedisRateLimiterBackend(connectionFactory, arguments[2],
				new RateLimitProperties().getTimeout());
		backend.start();
		Policy limits = Policy.of("frozen", Algorithm.TOKEN_BUCKET, arguments[3]);
		PolicyDefinition policy = PolicyDefinition.of(limits, backend.create(limits), "global", (request) -> null,
				List.of(), List.of(), Set.of(), 1, FailureMode.OPEN, false);
		AtomicLong refusedLate = new AtomicLong();
		RateLimitEnforcer enforcer = new RateLimitEnforcer(List.of(new RateLimitRecorder() {

			@Override
			public void record(RateLimitOutcome outcome, long backendNanos) {
			}

			@Override
			public void refusedLate(RateLimitOutcome outcome) {
				refusedLate.incrementAndGet();
			}

		}), backend, new CircuitBreaker(), null, 1);
		// a decision, so that the first frozen ones find everything loaded
		enforcer.enforceAsync(policy, policy.defaultPlan(), "warm-up", 1).toCompletableFuture().join();
		int threads = Integer.parseInt(arguments[4]);
		AtomicLong[] counts = { new AtomicLong(), new AtomicLong(), new AtomicLong() };
		List<Thread> deciding = new ArrayList<>();
		Set<Thread> running = ConcurrentHashMap.newKeySet();
		CommandedJvm.serve((command) -> switch (command) {
			case "ready" -> "ready";
			case "decide" -> {
				for (int i = 0; i < threads; i++) {
					Thread thread = new Thread(() -> {
						while (running.contains(Thread.currentThread())) {
							count(enforcer.enforceAsync(policy, policy.defaultPlan(), "client", 1)
								.toCompletableFuture()
								.join(), counts);
						}
					}, "deciding-" + i);
					running.add(thread);
					deciding.add(thread);
					thread.start();
				}
				yield "deciding";
			}
			case "stop" -> {
				running.clear();
				for (Thread thread : deciding) {
					thread.join();
				}
				yield counts[0].get() + " " + counts[1].get() + " " + counts[2].get() + " " + refusedLate.get();
			}
			default -> throw new IllegalArgumentException(command);
		});
		backend.close();
		connectionFactory.destroy();
	}

	private static void count(RateLimitOutcome outcome, AtomicLong[] counts) {
		switch (outcome.kind()) {
			case ALLOWED -> counts[0].incrementAndGet();
			case FAILED_OPEN -> counts[1].incrementAndGet();
			default -> counts[2].incrementAndGet();
		}
	}

}
