package io.github.ratelimit.test;

import java.io.IOException;
import java.io.OutputStream;
import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.ProtectionDomain;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

import org.springframework.asm.ClassReader;
import org.springframework.asm.ClassVisitor;
import org.springframework.asm.ClassWriter;
import org.springframework.asm.ConstantDynamic;
import org.springframework.asm.Handle;
import org.springframework.asm.MethodVisitor;
import org.springframework.asm.Opcodes;

/**
 * A Java agent that shifts the wall clock of the JVM it runs in, as seen by every class outside the JDK: started with
 * {@code -javaagent:<jar>=<offset in ms>}, it rewrites each call to {@code System.currentTimeMillis()},
 * {@code Instant.now()}, {@code Clock.systemUTC()}, {@code Clock.systemDefaultZone()}, {@code Clock.system(zone)},
 * the no-argument {@code now()} of {@code LocalDate}, {@code LocalTime}, {@code LocalDateTime},
 * {@code OffsetDateTime} and {@code ZonedDateTime}, and {@code new Date()} in classes loaded by the application
 * class loader (Spring, Tomcat, Lettuce, the starter, the application) to read the clock plus the offset, and so
 * every method handle of them: method references ({@code System::currentTimeMillis}, {@code Date::new}) and
 * lambdas' bootstraps ({@code invokedynamic}), and handles loaded as constants ({@code ldc}).
 * <p>
 * A JVM's clock cannot be moved from inside Java otherwise: it reads the operating system's. What this does not
 * shift: reads made inside the JDK itself (its own classes are not rewritten) and {@code System.nanoTime()}, which
 * measures intervals and has no relation to wall time or to other machines. Tomcat's {@code Date} response header is
 * among what it does shift, which lets a test see the skew from outside.
 */
public final class ClockShiftAgent {

	private static final String SELF = ClockShiftAgent.class.getName().replace('.', '/');

	private static final Map<String, String> REWRITES = Map.ofEntries(
			Map.entry("java/lang/System.currentTimeMillis()J", "currentTimeMillis"),
			Map.entry("java/time/Instant.now()Ljava/time/Instant;", "instantNow"),
			Map.entry("java/time/Clock.systemUTC()Ljava/time/Clock;", "systemUTC"),
			Map.entry("java/time/Clock.systemDefaultZone()Ljava/time/Clock;", "systemDefaultZone"),
			Map.entry("java/time/Clock.system(Ljava/time/ZoneId;)Ljava/time/Clock;", "system"),
			Map.entry("java/time/LocalDate.now()Ljava/time/LocalDate;", "localDateNow"),
			Map.entry("java/time/LocalTime.now()Ljava/time/LocalTime;", "localTimeNow"),
			Map.entry("java/time/LocalDateTime.now()Ljava/time/LocalDateTime;", "localDateTimeNow"),
			Map.entry("java/time/OffsetDateTime.now()Ljava/time/OffsetDateTime;", "offsetDateTimeNow"),
			Map.entry("java/time/ZonedDateTime.now()Ljava/time/ZonedDateTime;", "zonedDateTimeNow"));

	private static volatile long offsetMillis;

	private ClockShiftAgent() {
	}

	/**
	 * The agent's entry point.
	 * @param arguments the offset in milliseconds, such as {@code -45000}
	 * @param instrumentation the JVM's instrumentation
	 */
	public static void premain(String arguments, Instrumentation instrumentation) {
		offsetMillis = Long.parseLong(arguments.trim());
		instrumentation.addTransformer(new Rewriter());
	}

	/**
	 * Writes a new jar that starts this agent, for {@code -javaagent:}; the agent's classes come from the classpath.
	 * @param directory where to write it
	 * @return the jar
	 * @throws IOException when it cannot be written
	 */
	public static Path jar(Path directory) throws IOException {
		Manifest manifest = new Manifest();
		manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
		manifest.getMainAttributes().putValue("Premain-Class", ClockShiftAgent.class.getName());
		Files.createDirectories(directory);
		// a new file each time: rewriting a jar that running JVMs have open breaks them and those starting
		Path jar = Files.createTempFile(directory, "clock-shift-agent-", ".jar");
		try (OutputStream out = Files.newOutputStream(jar)) {
			new JarOutputStream(out, manifest).close();
		}
		return jar;
	}

	/**
	 * The command that starts a JVM on this JVM's classpath with its clock shifted by this agent.
	 * @param offset how far to shift its clock
	 * @param mainClass the class whose {@code main} it runs
	 * @param arguments the arguments of {@code main}
	 * @return the command
	 * @throws IOException when the agent's jar cannot be written (under {@code target/clock-shift-agent})
	 */
	public static List<String> javaCommand(Duration offset, String mainClass, String... arguments) throws IOException {
		Path agent = jar(Path.of("target", "clock-shift-agent"));
		return CommandedJvm.javaCommand(List.of("-javaagent:" + agent.toAbsolutePath() + "=" + offset.toMillis()),
				mainClass, arguments);
	}

	public static long currentTimeMillis() {
		return System.currentTimeMillis() + offsetMillis;
	}

	public static Instant instantNow() {
		return Instant.now().plusMillis(offsetMillis);
	}

	public static Clock systemUTC() {
		return Clock.offset(Clock.systemUTC(), Duration.ofMillis(offsetMillis));
	}

	public static Clock systemDefaultZone() {
		return Clock.offset(Clock.systemDefaultZone(), Duration.ofMillis(offsetMillis));
	}

	public static Clock system(ZoneId zone) {
		return Clock.offset(Clock.system(zone), Duration.ofMillis(offsetMillis));
	}

	public static LocalDate localDateNow() {
		return LocalDate.now(systemDefaultZone());
	}

	public static LocalTime localTimeNow() {
		return LocalTime.now(systemDefaultZone());
	}

	public static LocalDateTime localDateTimeNow() {
		return LocalDateTime.now(systemDefaultZone());
	}

	public static OffsetDateTime offsetDateTimeNow() {
		return OffsetDateTime.now(systemDefaultZone());
	}

	public static ZonedDateTime zonedDateTimeNow() {
		return ZonedDateTime.now(systemDefaultZone());
	}

	public static Date newDate() {
		return new Date(currentTimeMillis());
	}

	/**
	 * Rewrites the clock reads of application classes.
	 */
	private static final class Rewriter implements ClassFileTransformer {

		private static final String[] MARKERS = { "currentTimeMillis", "java/time/", "java/util/Date" };

		@Override
		public byte[] transform(ClassLoader loader, String className, Class<?> redefined,
				ProtectionDomain protectionDomain, byte[] bytes) {
			if (loader == null || loader == ClassLoader.getPlatformClassLoader() || className == null
					|| className.startsWith(SELF) || className.startsWith("org/springframework/asm/")
					|| !mayReadTheClock(bytes)) {
				return null;
			}
			try {
				ClassReader reader = new ClassReader(bytes);
				ClassWriter writer = new ClassWriter(reader, ClassWriter.COMPUTE_MAXS);
				AtomicLong rewritten = new AtomicLong();
				reader.accept(new ClassVisitor(Opcodes.ASM9, writer) {

					@Override
					public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
							String[] exceptions) {
						return new CallRewriter(super.visitMethod(access, name, descriptor, signature, exceptions),
								rewritten);
					}

				}, 0);
				return (rewritten.get() > 0) ? writer.toByteArray() : null;
			}
			catch (RuntimeException ex) {
				// leave a class that cannot be rewritten as it is
				return null;
			}
		}

		private static boolean mayReadTheClock(byte[] bytes) {
			String text = new String(bytes, StandardCharsets.ISO_8859_1);
			for (String marker : MARKERS) {
				if (text.contains(marker)) {
					return true;
				}
			}
			return false;
		}

	}

	/**
	 * Replaces clock reads in one method.
	 */
	private static final class CallRewriter extends MethodVisitor {

		private final AtomicLong rewritten;

		CallRewriter(MethodVisitor delegate, AtomicLong rewritten) {
			super(Opcodes.ASM9, delegate);
			this.rewritten = rewritten;
		}

		@Override
		public void visitMethodInsn(int opcode, String owner, String name, String descriptor, boolean isInterface) {
			String replacement = (opcode == Opcodes.INVOKESTATIC) ? REWRITES.get(owner + "." + name + descriptor)
					: null;
			if (replacement != null) {
				this.rewritten.incrementAndGet();
				super.visitMethodInsn(Opcodes.INVOKESTATIC, SELF, replacement, descriptor, false);
			}
			else if (opcode == Opcodes.INVOKESPECIAL && owner.equals("java/util/Date") && name.equals("<init>")
					&& descriptor.equals("()V")) {
				// new Date() becomes new Date(shifted millis)
				this.rewritten.incrementAndGet();
				super.visitMethodInsn(Opcodes.INVOKESTATIC, SELF, "currentTimeMillis", "()J", false);
				super.visitMethodInsn(Opcodes.INVOKESPECIAL, owner, name, "(J)V", false);
			}
			else {
				super.visitMethodInsn(opcode, owner, name, descriptor, isInterface);
			}
		}

		@Override
		public void visitInvokeDynamicInsn(String name, String descriptor, Handle bootstrap, Object... arguments) {
			Object[] shifted = new Object[arguments.length];
			for (int i = 0; i < arguments.length; i++) {
				shifted[i] = shifted(arguments[i]);
			}
			super.visitInvokeDynamicInsn(name, descriptor, (Handle) shifted(bootstrap), shifted);
		}

		@Override
		public void visitLdcInsn(Object value) {
			super.visitLdcInsn(shifted(value));
		}

		/**
		 * A constant with its method handles of clock reads (a method reference such as
		 * {@code System::currentTimeMillis} or {@code Date::new}, a handle loaded with {@code ldc}) replaced by
		 * handles of the shifted reads.
		 */
		private Object shifted(Object constant) {
			if (constant instanceof Handle handle) {
				return shifted(handle);
			}
			if (constant instanceof ConstantDynamic dynamic) {
				Object[] arguments = new Object[dynamic.getBootstrapMethodArgumentCount()];
				for (int i = 0; i < arguments.length; i++) {
					arguments[i] = shifted(dynamic.getBootstrapMethodArgument(i));
				}
				return new ConstantDynamic(dynamic.getName(), dynamic.getDescriptor(),
						shifted(dynamic.getBootstrapMethod()), arguments);
			}
			return constant;
		}

		private Handle shifted(Handle handle) {
			String replacement = (handle.getTag() == Opcodes.H_INVOKESTATIC)
					? REWRITES.get(handle.getOwner() + "." + handle.getName() + handle.getDesc()) : null;
			if (replacement != null) {
				this.rewritten.incrementAndGet();
				return new Handle(Opcodes.H_INVOKESTATIC, SELF, replacement, handle.getDesc(), false);
			}
			if (handle.getTag() == Opcodes.H_NEWINVOKESPECIAL && handle.getOwner().equals("java/util/Date")
					&& handle.getDesc().equals("()V")) {
				this.rewritten.incrementAndGet();
				return new Handle(Opcodes.H_INVOKESTATIC, SELF, "newDate", "()Ljava/util/Date;", false);
			}
			return handle;
		}

	}

}
