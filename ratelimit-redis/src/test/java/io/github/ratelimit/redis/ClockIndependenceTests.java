package io.github.ratelimit.redis;

import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Date;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import io.github.ratelimit.core.AbstractRateLimiter;
import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.LeaseGrant;
import io.github.ratelimit.core.Limit;
import io.github.ratelimit.core.LimitDecision;
import io.github.ratelimit.core.Policy;
import io.github.ratelimit.core.StorageKeys;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.test.StartedWindow;
import io.github.ratelimit.test.TestRedis;
import org.junit.jupiter.api.Test;

import org.springframework.asm.ClassReader;
import org.springframework.asm.ClassVisitor;
import org.springframework.asm.ConstantDynamic;
import org.springframework.asm.Handle;
import org.springframework.asm.MethodVisitor;
import org.springframework.asm.Opcodes;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Servers whose clocks disagree must make identical decisions. On Redis that holds because no application clock
 * enters a decision: time comes only from Redis {@code TIME} inside the script. These tests fail if an application
 * time source ever creeps into the Redis decision path: its bytecode is scanned for clock reads, called or taken as
 * method handles, and limiters in two JVMs whose clocks {@link io.github.ratelimit.test.ClockShiftAgent} sets 90 s
 * apart must decide as one.
 */
class ClockIndependenceTests {

	private static final Set<String> APPLICATION_TIME_SOURCES = Set.of("java/lang/System.currentTimeMillis",
			"java/lang/System.nanoTime", "java/time/Clock.*", "java/time/Instant.now", "java/time/LocalDateTime.now",
			"java/time/ZonedDateTime.now", "java/time/OffsetDateTime.now", "java/util/Date.<init>",
			"java/time/InstantSource.*");

	private static final List<Class<?>> DECISION_PATH = List.of(RedisRateLimiterBackend.class,
			RedisRateLimiter.class, LettuceScriptExecutor.class, TemplateScriptExecutor.class, LettuceScripts.class,
			LuaScript.class, LimitArguments.class, AbstractRateLimiter.class, Decision.class, LeaseGrant.class, LimitDecision.class, Limit.class,
			Policy.class, StorageKeys.class, Algorithm.class);

	@Test
	void redisDecisionPathReadsNoApplicationClock() throws IOException {
		List<String> methods = new ArrayList<>();
		for (Class<?> type : DECISION_PATH) {
			methods.addAll(referencedMethods(type));
		}
		assertThat(methods).isNotEmpty();
		assertThat(methods).noneMatch(ClockIndependenceTests::readsApplicationTime);
	}

	@Test
	void guardRecognisesAnApplicationClockRead() throws IOException {
		assertThat(referencedMethods(ReadsTheClock.class)).anyMatch(ClockIndependenceTests::readsApplicationTime);
	}

	@Test
	void guardRecognisesMethodReferencesToTheClock() throws IOException {
		assertThat(referencedMethods(ReadsTheClockThroughMethodReferences.class))
			.contains("java/lang/System.currentTimeMillis", "java/time/Instant.now", "java/util/Date.<init>");
	}

	@Test
	void guardRecognisesMethodHandleConstantsOfTheClock() {
		assertThat(referencedMethods(ClockHandleConstant.classFile())).contains("java/lang/System.currentTimeMillis");
	}

	@Test
	void limitersInJvmsWhoseClocksAreNinetySecondsApartDecideAsOne() throws Exception {
		LettuceConnectionFactory connectionFactory = TestRedis.get().newConnectionFactory();
		try {
			StringRedisTemplate redis = new StringRedisTemplate(connectionFactory);
			// a window begun at the test, which outlasts starting two JVMs and all the decisions on a busy machine
			Limit limit = RedisTime.startedWindow(redis, "5/10m");
			long windowEnd = StartedWindow.end(limit, RedisTime.micros(redis));
			Policy policy = new Policy("clock-" + UUID.randomUUID(), Algorithm.FIXED_WINDOW, List.of(limit));
			try (ShiftedClockJvm early = ShiftedClockJvm.start(Duration.ofSeconds(-45), policy, "ratelimit");
					ShiftedClockJvm late = ShiftedClockJvm.start(Duration.ofSeconds(45), policy, "ratelimit")) {
				assertReadsAClockShiftedBy(early, Duration.ofSeconds(-45));
				assertReadsAClockShiftedBy(late, Duration.ofSeconds(45));
				List<ShiftedClockJvm> jvms = List.of(early, late);
				String client = "client-" + UUID.randomUUID();
				List<TimedAnswer> onRedis = decideOnRedis(jvms, redis, client);
				assertThat(onRedis).hasSize(10)
					.allSatisfy((decision) -> assertThat(decision.after()).as("decided before the window ended")
						.isLessThan(windowEnd));
				assertThat(onRedis).filteredOn((decision) -> decision.answer().allowed()).hasSize(5);
				for (TimedAnswer decision : onRedis) {
					// whichever JVM decides, it is the window Redis' clock is in
					assertThat(decision.answer().resetMicros()).as("reset of %s", decision)
						.isBetween(windowEnd - decision.after(), windowEnd - decision.before());
				}
				// the same check on limiters that read their JVM's clock fails for every decision: the skew is real
				// enough to move a limiter that reads it (their windows end 45 s or more away from Redis', so this
				// holds even once Redis' window has ended)
				for (int i = 0; i < 10; i++) {
					long before = RedisTime.micros(redis);
					ShiftedClockJvm.Answer answer = jvms.get(i % 2).tryAcquireInMemory(client);
					long after = RedisTime.micros(redis);
					assertThat(answer.resetMicros()).as("in-memory reset of decision %d", i)
						.satisfiesAnyOf((reset) -> assertThat(reset).isLessThan(windowEnd - after),
								(reset) -> assertThat(reset).isGreaterThan(windowEnd - before));
				}
			}
		}
		finally {
			connectionFactory.destroy();
		}
	}

	/**
	 * Ten decisions of a client on Redis, alternating between the JVMs, each timed by Redis' clock.
	 */
	private static List<TimedAnswer> decideOnRedis(List<ShiftedClockJvm> jvms, StringRedisTemplate redis,
			String client) {
		List<TimedAnswer> decisions = new ArrayList<>();
		for (int decision = 0; decision < 10; decision++) {
			long before = RedisTime.micros(redis);
			ShiftedClockJvm.Answer answer = jvms.get(decision % 2).tryAcquireOnRedis(client);
			decisions.add(new TimedAnswer(before, RedisTime.micros(redis), answer));
		}
		return decisions;
	}

	private static void assertReadsAClockShiftedBy(ShiftedClockJvm jvm, Duration offset) {
		long before = System.currentTimeMillis();
		long[] readings = jvm.clockReadings();
		long after = System.currentTimeMillis();
		// a call, the method references System::currentTimeMillis, Instant::now and Date::new, and an ldc handle
		assertThat(readings).hasSize(5);
		for (long millis : readings) {
			assertThat(millis).isBetween(before + offset.toMillis(), after + offset.toMillis());
		}
	}

	private static boolean readsApplicationTime(String call) {
		String owner = call.substring(0, call.indexOf('.'));
		return APPLICATION_TIME_SOURCES.contains(call) || APPLICATION_TIME_SOURCES.contains(owner + ".*");
	}

	private static List<String> referencedMethods(Class<?> type) throws IOException {
		String resource = type.getName().replace('.', '/') + ".class";
		try (InputStream in = type.getClassLoader().getResourceAsStream(resource)) {
			return referencedMethods(in.readAllBytes());
		}
	}

	/**
	 * Every method a class's code calls or takes a handle of: {@code invoke*} instructions, and the method handles
	 * of {@code invokedynamic} bootstraps and their arguments (a method reference such as
	 * {@code System::currentTimeMillis}, a lambda's implementation) and of constants loaded with {@code ldc}.
	 */
	private static List<String> referencedMethods(byte[] classFile) {
		List<String> methods = new ArrayList<>();
		new ClassReader(classFile).accept(new ClassVisitor(Opcodes.ASM9) {

			@Override
			public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
					String[] exceptions) {
				return new MethodVisitor(Opcodes.ASM9) {

					@Override
					public void visitMethodInsn(int opcode, String owner, String method, String desc,
							boolean isInterface) {
						methods.add(owner + "." + method);
					}

					@Override
					public void visitInvokeDynamicInsn(String method, String desc, Handle bootstrap,
							Object... arguments) {
						addConstant(bootstrap, methods);
						Arrays.stream(arguments).forEach((argument) -> addConstant(argument, methods));
					}

					@Override
					public void visitLdcInsn(Object value) {
						addConstant(value, methods);
					}

				};
			}

		}, 0);
		return methods;
	}

	private static void addConstant(Object constant, List<String> methods) {
		if (constant instanceof Handle handle) {
			methods.add(handle.getOwner() + "." + handle.getName());
		}
		else if (constant instanceof ConstantDynamic dynamic) {
			addConstant(dynamic.getBootstrapMethod(), methods);
			for (int i = 0; i < dynamic.getBootstrapMethodArgumentCount(); i++) {
				addConstant(dynamic.getBootstrapMethodArgument(i), methods);
			}
		}
	}

	/**
	 * Decisions of one client, and the end of the window they were meant to fall in.
	 */
	/**
	 * A decision and Redis' time, in microseconds, just before it was asked for and just after it was answered.
	 */
	private record TimedAnswer(long before, long after, ShiftedClockJvm.Answer answer) {
	}

	static final class ReadsTheClock {

		long now() {
			return System.currentTimeMillis();
		}

	}

	static final class ReadsTheClockThroughMethodReferences {

		LongSupplier millis() {
			return System::currentTimeMillis;
		}

		Supplier<Instant> instant() {
			return Instant::now;
		}

		Supplier<Date> date() {
			return Date::new;
		}

	}

}
