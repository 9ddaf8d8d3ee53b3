package io.github.ratelimit.test.blockhound;

import org.jspecify.annotations.Nullable;

import org.junit.platform.engine.FilterResult;
import org.junit.platform.engine.TestDescriptor;
import org.junit.platform.engine.TestSource;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.PostDiscoveryFilter;

/**
 * Keeps the tests that must run under BlockHound out of every other JVM, even when they are named on the command
 * line ({@code -Dtest=..} overrides Surefire's excludes, so the default execution would run them without it), and
 * keeps every other test out of the BlockHound JVM. The launcher prunes only leaves, so each test method is judged by
 * its class. In the build's own JVM, where Surefire discovers the classes it shares out among its test JVMs, it
 * keeps everything: there, only the execution's includes and excludes choose.
 */
public class BlockHoundTestsFilter implements PostDiscoveryFilter {

	@Override
	public FilterResult apply(TestDescriptor descriptor) {
		String className = className(descriptor.getSource().orElse(null));
		if (className == null) {
			return FilterResult.included("not a test class or method");
		}
		if (!BlockHoundTests.testJvm()) {
			return FilterResult.included("not a test JVM: the execution's includes and excludes choose");
		}
		boolean underBlockHound = BlockHoundTests.runsUnderBlockHound(className);
		if (underBlockHound == BlockHoundTests.requested()) {
			return FilterResult.included("runs in this execution");
		}
		return FilterResult.excluded(underBlockHound ? "runs in the webflux execution, under BlockHound"
				: "runs in the default execution, without BlockHound");
	}

	private static @Nullable String className(@Nullable TestSource source) {
		if (source instanceof ClassSource test) {
			return test.getClassName();
		}
		if (source instanceof MethodSource test) {
			return test.getClassName();
		}
		return null;
	}

}
