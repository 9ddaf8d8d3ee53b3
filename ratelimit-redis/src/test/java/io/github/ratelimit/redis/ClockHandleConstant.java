package io.github.ratelimit.redis;

import java.lang.invoke.MethodHandle;

import org.springframework.asm.ClassWriter;
import org.springframework.asm.Handle;
import org.springframework.asm.MethodVisitor;
import org.springframework.asm.Opcodes;

/**
 * A class, written with ASM, whose one method loads a method handle of {@code System.currentTimeMillis} as a constant
 * ({@code ldc}): javac never writes that, but other compilers and bytecode generators may, and the clock guards must
 * see it.
 */
final class ClockHandleConstant {

	static final String NAME = "io.github.ratelimit.redis.GeneratedClockHandleConstant";

	private ClockHandleConstant() {
	}

	/**
	 * The class file: {@code public static MethodHandle clock()} returns the constant.
	 * @return its bytes
	 */
	static byte[] classFile() {
		ClassWriter writer = new ClassWriter(ClassWriter.COMPUTE_FRAMES | ClassWriter.COMPUTE_MAXS);
		writer.visit(Opcodes.V17, Opcodes.ACC_PUBLIC | Opcodes.ACC_FINAL, NAME.replace('.', '/'), null,
				"java/lang/Object", null);
		MethodVisitor method = writer.visitMethod(Opcodes.ACC_PUBLIC | Opcodes.ACC_STATIC, "clock",
				"()Ljava/lang/invoke/MethodHandle;", null, null);
		method.visitCode();
		method.visitLdcInsn(new Handle(Opcodes.H_INVOKESTATIC, "java/lang/System", "currentTimeMillis", "()J", false));
		method.visitInsn(Opcodes.ARETURN);
		method.visitMaxs(0, 0);
		method.visitEnd();
		writer.visitEnd();
		return writer.toByteArray();
	}

	/**
	 * Defines the class in a class loader of its own, below the given one, and returns its constant.
	 * @param parent the class loader that resolves what the class names
	 * @return the method handle the class loads
	 * @throws ReflectiveOperationException when the class cannot be defined or called
	 */
	static MethodHandle load(ClassLoader parent) throws ReflectiveOperationException {
		byte[] classFile = classFile();
		Class<?> type = new ClassLoader(parent) {

			Class<?> define() {
				return defineClass(NAME, classFile, 0, classFile.length);
			}

		}.define();
		return (MethodHandle) type.getMethod("clock").invoke(null);
	}

}
