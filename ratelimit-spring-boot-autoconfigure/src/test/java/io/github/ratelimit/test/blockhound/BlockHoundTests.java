package io.github.ratelimit.test.blockhound;

import java.util.regex.Pattern;

/**
 * Which test classes run under BlockHound, and whether this JVM is the one that runs them: the Surefire execution
 * {@code webflux} sets {@value #PROPERTY} and runs exactly the classes named {@code *WebFlux*Tests} and
 * {@code *Reactive*Tests}; the default execution runs every other class.
 */
final class BlockHoundTests {

	/** The system property the {@code webflux} execution sets. */
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
