package io.github.ratelimit.test.blockhound;

import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;

/**
 * Installs BlockHound before the first test of a module runs, for the modules that register it in
 * {@code META-INF/services/org.junit.platform.launcher.LauncherSessionListener} (the WebFlux sample, the gateway
 * sample, the gateway tests), as every reactive test JVM of the project does ({@link TestBlockHound}): from then on, a
 * blocking call on a non-blocking thread (Reactor Netty's and Lettuce's event loops, Reactor's parallel scheduler)
 * throws {@code BlockingOperationError}, which fails the request and the test. Needs the JVM flag
 * {@code -XX:+AllowRedefinitionToAddDeleteMethods}, and installs only where {@code ratelimit.test.blockhound} is
 * {@code true}: both set for the test JVMs in those modules' Surefire configuration. The build's own JVM opens launcher
 * sessions too, when Surefire looks there for the test classes to share out among several test JVMs; BlockHound must
 * not be installed into it.
 */
public class BlockHoundSession implements LauncherSessionListener {

	@Override
	public void launcherSessionOpened(LauncherSession session) {
		if (Boolean.getBoolean("ratelimit.test.blockhound")) {
			TestBlockHound.install();
		}
	}

}
