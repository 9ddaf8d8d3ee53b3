package io.github.ratelimit.redis;

import java.io.IOException;
import java.nio.file.Path;
import java.lang.invoke.MethodHandle;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.Policy;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.core.memory.InMemoryRateLimiterBackend;
import io.github.ratelimit.test.ClockShiftAgent;
import io.github.ratelimit.test.CommandedJvm;
import io.github.ratelimit.test.TestRedis;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A JVM of its own whose wall clock {@link ClockShiftAgent} shifts, as a server with a skewed clock would have, with
 * one policy's limiters on Redis and in memory. The test sends it one command a line and reads one answer a line
 * ({@link CommandedJvm}).
 */
final class ShiftedClockJvm implements AutoCloseable {

	private final CommandedJvm jvm;

	private ShiftedClockJvm(CommandedJvm jvm) {
		this.jvm = jvm;
	}

	/**
	 * Starts a JVM whose limiters decide a policy on the test's Redis and in memory.
	 * @param offset how far its clock is shifted
	 * @param policy the policy, of one limit
	 * @return the started JVM, once its limiters are ready
	 */
	static ShiftedClockJvm start(Duration offset, Policy policy, String keyPrefix) throws IOException {
		TestRedis redis = TestRedis.get();
		List<String> command = ClockShiftAgent.javaCommand(offset, ShiftedClockJvm.class.getName(), redis.host(),
				Integer.toString(redis.port()), keyPrefix, policy.name(), policy.algorithm().id(),
				policy.limits().get(0).toString());
		ShiftedClockJvm jvm = new ShiftedClockJvm(CommandedJvm.start(command,
				Path.of("target", "shifted-clock-jvm-" + offset.toMillis() + ".log")));
		jvm.ask("ready");
		return jvm;
	}

	/**
	 * The JVM's wall clock, read by application code in every way the agent shifts.
	 * @return in milliseconds: a call of {@code System.currentTimeMillis()}, the method references
	 * {@code System::currentTimeMillis}, {@code Instant::now} and {@code Date::new}, and a method handle of
	 * {@code System.currentTimeMillis} loaded as a constant ({@link ClockHandleConstant})
	 */
	long[] clockReadings() {
		String[] fields = ask("clock").split(" ");
		long[] millis = new long[fields.length];
		for (int i = 0; i < fields.length; i++) {
			millis[i] = Long.parseLong(fields[i]);
		}
		return millis;
	}

	/**
	 * One decision of the limiter on Redis.
	 * @param client the client's key
	 * @return whether it was admitted and its reset-after in microseconds
	 */
	Answer tryAcquireOnRedis(String client) {
		return Answer.parse(ask("redis " + client));
	}

	/**
	 * One decision of the limiter in this JVM's memory, on its shifted clock.
	 * @param client the client's key
	 * @return whether it was admitted and its reset-after in microseconds
	 */
	Answer tryAcquireInMemory(String client) {
		return Answer.parse(ask("memory " + client));
	}

	private String ask(String command) {
		return this.jvm.ask(command);
	}

	@Override
	public void close() throws InterruptedException {
		this.jvm.close();
	}

	/**
	 * What a decision answered.
	 * @param allowed whether it admitted the request
	 * @param resetMicros its reset-after, in microseconds
	 */
	record Answer(boolean allowed, long resetMicros) {

		static Answer parse(String line) {
			String[] fields = line.split(" ");
			return new Answer(Boolean.parseBoolean(fields[0]), Long.parseLong(fields[1]));
		}

	}

	/**
	 * The JVM's side.
	 * @param arguments Redis host and port, key prefix, policy name, algorithm and limit
	 */
	public static void main(String[] arguments) throws Throwable {
		LettuceConnectionFactory connectionFactory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(arguments[0], Integer.parseInt(arguments[1])));
		connectionFactory.afterPropertiesSet();
		connectionFactory.start();
		Policy policy = Policy.of(arguments[3], Algorithm.of(arguments[4]), arguments[5]);
		RateLimiter onRedis = new RedisRateLimiterBackend(connectionFactory, arguments[2], TestRedis.TIMEOUT)
			.create(policy);
		RateLimiter inMemory = new InMemoryRateLimiterBackend().create(policy);
		LongSupplier millis = System::currentTimeMillis;
		Supplier<Instant> instant = Instant::now;
		Supplier<Date> date = Date::new;
		MethodHandle constant = ClockHandleConstant.load(ShiftedClockJvm.class.getClassLoader());
		CommandedJvm.serve((command) -> {
			String[] words = command.split(" ", 2);
			return switch (words[0]) {
				case "ready" -> "ready";
				case "clock" -> System.currentTimeMillis() + " " + millis.getAsLong() + " "
						+ instant.get().toEpochMilli() + " " + date.get().getTime() + " "
						+ (long) constant.invokeExact();
				case "redis" -> describe(onRedis.tryAcquire(words[1]));
				case "memory" -> describe(inMemory.tryAcquire(words[1]));
				default -> throw new IllegalArgumentException(command);
			};
		});
		connectionFactory.destroy();
	}

	private static String describe(Decision decision) {
		return decision.allowed() + " " + TimeUnit.NANOSECONDS.toMicros(decision.resetAfter().toNanos());
	}

}
