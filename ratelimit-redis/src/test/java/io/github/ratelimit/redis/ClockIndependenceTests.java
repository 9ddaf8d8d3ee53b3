package io.github.ratelimit.redis;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;

import io.github.ratelimit.core.AbstractRateLimiter;
import io.github.ratelimit.core.Algorithm;
import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.Limit;
import io.github.ratelimit.core.LimitOutcome;
import io.github.ratelimit.core.Policy;
import io.github.ratelimit.core.RateLimitKeys;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.test.TestRedis;
import org.junit.jupiter.api.Test;

import org.springframework.asm.ClassReader;
import org.springframework.asm.ClassVisitor;
import org.springframework.asm.MethodVisitor;
import org.springframework.asm.Opcodes;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Servers whose clocks disagree must make identical decisions. On Redis that holds because no application clock
 * enters a decision: time comes only from Redis {@code TIME} inside the script. These tests fail if an application
 * time source ever creeps into the Redis decision path.
 */
class ClockIndependenceTests {

	private static final Set<String> APPLICATION_TIME_SOURCES = Set.of("java/lang/System.currentTimeMillis",
			"java/lang/System.nanoTime", "java/time/Clock.*", "java/time/Instant.now", "java/time/LocalDateTime.now",
			"java/time/ZonedDateTime.now", "java/time/OffsetDateTime.now", "java/util/Date.<init>",
			"java/time/InstantSource.*");

	private static final List<Class<?>> DECISION_PATH = List.of(RedisRateLimiterBackend.class,
			RedisRateLimiter.class, LettuceScriptExecutor.class, TemplateScriptExecutor.class, LettuceScripts.class,
			LuaScript.class, LimitArguments.class, AbstractRateLimiter.class, Decision.class, LimitOutcome.class, Limit.class,
			Policy.class, RateLimitKeys.class, Algorithm.class);

	@Test
	void redisDecisionPathReadsNoApplicationClock() throws IOException {
		List<String> calls = new ArrayList<>();
		for (Class<?> type : DECISION_PATH) {
			calls.addAll(methodCalls(type));
		}
		assertThat(calls).isNotEmpty();
		assertThat(calls).noneMatch(ClockIndependenceTests::readsApplicationTime);
	}

	@Test
	void guardRecognisesAnApplicationClockRead() throws IOException {
		assertThat(methodCalls(ReadsTheClock.class)).anyMatch(ClockIndependenceTests::readsApplicationTime);
	}

	@Test
	void instancesOnSeparateConnectionsMakeIdenticalDecisions() {
		LettuceConnectionFactory one = TestRedis.get().newConnectionFactory();
		LettuceConnectionFactory two = TestRedis.get().newConnectionFactory();
		try {
			Policy policy = Policy.of("clock-" + UUID.randomUUID(), Algorithm.FIXED_WINDOW, "5/1d");
			RateLimiter first = new RedisRateLimiterBackend(one, "ratelimit", TestRedis.TIMEOUT).create(policy);
			RateLimiter second = new RedisRateLimiterBackend(two, "ratelimit", TestRedis.TIMEOUT).create(policy);
			for (int i = 0; i < 4; i++) {
				Decision a = first.tryAcquire("client");
				Decision b = second.peek("client");
				assertThat(b.remaining()).isEqualTo(a.remaining());
				// both read the end of the same Redis-clock window, microseconds apart
				assertThat(b.resetAfter()).isBetween(a.resetAfter().minusSeconds(1), a.resetAfter());
			}
		}
		finally {
			one.destroy();
			two.destroy();
		}
	}

	private static Class<?> nested(Class<?> outer, String name) {
		for (Class<?> type : outer.getDeclaredClasses()) {
			if (type.getSimpleName().equals(name)) {
				return type;
			}
		}
		throw new IllegalStateException("No class " + name + " in " + outer);
	}

	private static boolean readsApplicationTime(String call) {
		String owner = call.substring(0, call.indexOf('.'));
		return APPLICATION_TIME_SOURCES.contains(call) || APPLICATION_TIME_SOURCES.contains(owner + ".*");
	}

	private static List<String> methodCalls(Class<?> type) throws IOException {
		List<String> calls = new ArrayList<>();
		String resource = type.getName().replace('.', '/') + ".class";
		try (InputStream in = type.getClassLoader().getResourceAsStream(resource)) {
			new ClassReader(in).accept(new ClassVisitor(Opcodes.ASM9) {

				@Override
				public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
						String[] exceptions) {
					return new MethodVisitor(Opcodes.ASM9) {

						@Override
						public void visitMethodInsn(int opcode, String owner, String method, String desc,
								boolean isInterface) {
							calls.add(owner + "." + method);
						}

					};
				}

			}, 0);
		}
		return calls;
	}

	static final class ReadsTheClock {

		long now() {
			return System.currentTimeMillis();
		}

	}

}
