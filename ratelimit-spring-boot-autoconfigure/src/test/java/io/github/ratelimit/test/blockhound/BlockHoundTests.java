package io.github.ratelimit.test.blockhound;

import java.util.regex.Pattern;

/**
 * Which test classes run under BlockHound, and whether this JVM is the one that runs them: the Surefire execution
 * {@code webflux} sets {@value #PROPERTY} to {@code true} and runs exactly the classes named {@code *WebFlux*Tests}
 * and {@code *Reactive*Tests}; the default execution sets it to {@code false} and runs every other class. A JVM
 * without it is none of the two: the build's own, where Surefire looks for the test classes to share out among its
 * test JVMs (it runs two), and where the executions' includes and excludes alone choose.
 */
final class BlockHoundTests {

	/** The system property each execution sets for its test JVMs. */
	static final String PROPERTY = "ratelimit.test.blockhound";

	private static final Pattern NAME = Pattern.compile(".*(WebFlux|Reactive).*Tests");

	private BlockHoundTests() {
	}

	/**
	 * Whether this JVM runs the tests under BlockHound.
	 * @return whether {@value #PROPERTY} is {@code true}
	 */
	static boolean requested() {
		return Boolean.getBoolean(PROPERTY);
	}

	/**
	 * Whether this JVM runs the tests of one execution.
	 * @return whether {@value #PROPERTY} is set
	 */
	static boolean testJvm() {
		return System.getProperty(PROPERTY) != null;
	}

	/**
	 * Whether a test class is one of those that run under BlockHound.
	 * @param className the class's name, nested classes included
	 * @return whether its top-level class is named {@code *WebFlux*Tests} or {@code *Reactive*Tests}
	 */
	static boolean runsUnderBlockHound(String className) {
		int nested = className.indexOf('$');
		String topLevel = (nested < 0) ? className : className.substring(0, nested);
		return NAME.matcher(topLevel.substring(topLevel.lastIndexOf('.') + 1)).matches();
	}

}
