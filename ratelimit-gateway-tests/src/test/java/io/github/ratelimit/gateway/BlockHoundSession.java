package io.github.ratelimit.gateway;

import io.github.ratelimit.test.blockhound.TestBlockHound;
import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;

/**
 * Installs BlockHound before the first test of this module runs (registered in
 * {@code META-INF/services/org.junit.platform.launcher.LauncherSessionListener}), as every reactive test JVM of the
 * project does ({@link TestBlockHound}): a blocking call on a non-blocking thread (Reactor Netty's and Lettuce's
 * event loops, Reactor's parallel scheduler) throws {@code BlockingOperationError}, which fails the request and the
 * test. It installs only where {@code ratelimit.test.blockhound} is {@code true} (this module's test JVMs, not the
 * build's own JVM).
 */
public class BlockHoundSession implements LauncherSessionListener {

	@Override
	public void launcherSessionOpened(LauncherSession session) {
		if (Boolean.getBoolean("ratelimit.test.blockhound")) {
			TestBlockHound.install();
		}
	}

}
