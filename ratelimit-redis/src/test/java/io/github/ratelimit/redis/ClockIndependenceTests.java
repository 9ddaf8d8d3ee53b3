package io.github.ratelimit.redis;

import java.io.IOException;
import java.io.InputStream;
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
import io.github.ratelimit.core.Limit;
import io.github.ratelimit.core.LimitOutcome;
import io.github.ratelimit.core.Policy;
import io.github.ratelimit.core.RateLimitKeys;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.test.TestRedis;
import org.junit.jupiter.api.Test;

import org.springframework.asm.ClassReader;
import org.springframework.asm.ClassVisitor;
import org.springframework.asm.ClassWriter;
import org.springframework.asm.ConstantDynamic;
import org.springframework.asm.Handle;
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

	/**
	 * A class that loads a method handle of {@code System.currentTimeMillis} as a constant ({@code ldc}), which javac
	 * never writes but other compilers and bytecode generators may.
	 */
	static final class ClockHandleConstant {

		static byte[] classFile() {
			ClassWriter writer = new ClassWriter(ClassWriter.COMPUTE_FRAMES | ClassWriter.COMPUTE_MAXS);
			writer.visit(Opcodes.V17, Opcodes.ACC_PUBLIC | Opcodes.ACC_FINAL, "ClockHandleConstant", null,
					"java/lang/Object", null);
			MethodVisitor method = writer.visitMethod(Opcodes.ACC_PUBLIC | Opcodes.ACC_STATIC, "clock",
					"()Ljava/lang/invoke/MethodHandle;", null, null);
			method.visitCode();
			method.visitLdcInsn(
					new Handle(Opcodes.H_INVOKESTATIC, "java/lang/System", "currentTimeMillis", "()J", false));
			method.visitInsn(Opcodes.ARETURN);
			method.visitMaxs(0, 0);
			method.visitEnd();
			writer.visitEnd();
			return writer.toByteArray();
		}

	}

}
