package io.github.ratelimit.test.blockhound;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Many writers of one Lettuce connection at once, some on non-blocking threads, under BlockHound: the case
 * {@link LettuceSharedLockAllowance} is for (kept apart from {@link TestBlockHound}, which JVMs without Lettuce use).
 */
public final class LettuceWriterContention {

	private static final int WRITERS = 4;

	private static final int COMMANDS_PER_WRITER = 10_000;

	private static final Duration BUDGET = Duration.ofSeconds(60);

	private LettuceWriterContention() {
	}

	/**
	 * Proves that commands written to one Lettuce connection at the same time from non-blocking threads (as decisions
	 * are, from Reactor Netty's event loops) and from an ordinary thread (as the health check's are) all get their
	 * answers. Without {@link LettuceSharedLockAllowance} a writer waiting for Lettuce's lock gets BlockHound's error
	 * inside it, which wedges the connection: every later writer spins forever before its command is sent.
	 * @param redisUrl the Redis to write to
	 */
	public static void assertEveryWriterAnswered(String redisUrl) {
		RedisClient client = RedisClient.create(redisUrl);
		StatefulRedisConnection<String, String> connection = client.connect();
		Scheduler eventLoops = Schedulers.newParallel("contending-writer", WRITERS);
		AtomicLong answered = new AtomicLong();
		AtomicLong failed = new AtomicLong();
		Thread ordinaryWriter = new Thread(() -> write(connection, answered, failed), "ordinary-writer");
		ordinaryWriter.setDaemon(true);
		try {
			ordinaryWriter.start();
			Long written = Flux.range(0, WRITERS)
				.parallel(WRITERS)
				.runOn(eventLoops)
				.map((writer) -> write(connection, answered, failed))
				.sequential()
				.reduce(0L, Long::sum)
				.block(BUDGET);
			ordinaryWriter.join(BUDGET.toMillis());
			assertThat(ordinaryWriter.isAlive()).as("the ordinary writer spins in Lettuce's lock: the connection is wedged")
				.isFalse();
			assertThat(written).isEqualTo((long) WRITERS * COMMANDS_PER_WRITER);
			long deadline = System.nanoTime() + BUDGET.toNanos();
			while (answered.get() + failed.get() < (WRITERS + 1L) * COMMANDS_PER_WRITER && System.nanoTime() < deadline) {
				Thread.onSpinWait();
			}
			assertThat(failed).as("commands that failed").hasValue(0);
			assertThat(answered).hasValue((WRITERS + 1L) * COMMANDS_PER_WRITER);
			assertThat(connection.sync().ping()).isEqualTo("PONG");
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
		finally {
			eventLoops.dispose();
		}
		// closed only once proven healthy: closing a wedged connection waits for its lock forever
		connection.close();
		client.shutdown();
	}

	private static long write(StatefulRedisConnection<String, String> connection, AtomicLong answered,
			AtomicLong failed) {
		for (int i = 0; i < COMMANDS_PER_WRITER; i++) {
			connection.async().ping().whenComplete((pong, error) -> {
				if (error == null) {
					answered.incrementAndGet();
				}
				else {
					failed.incrementAndGet();
				}
			});
		}
		return COMMANDS_PER_WRITER;
	}

}
