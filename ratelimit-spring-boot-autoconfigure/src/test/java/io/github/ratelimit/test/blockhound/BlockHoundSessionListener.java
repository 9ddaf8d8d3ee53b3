package io.github.ratelimit.test.blockhound;

import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;

/**
 * Installs BlockHound for the whole JVM before any test of the {@code webflux} execution runs, so that a blocking
 * call on a non-blocking thread (Reactor's parallel scheduler, Reactor Netty's server event loops, Lettuce's event
 * loops: Reactor's and Netty's own integrations mark them) fails with {@code BlockingOperationError}. It installs
 * nothing in other JVMs, and installs it as every reactive test JVM of the project does ({@link TestBlockHound}):
 * besides the integrations that Reactor, Netty and Spring ship, one allowance, for Lettuce's internal lock
 * ({@link LettuceSharedLockAllowance}); none for our own code.
 */
public class BlockHoundSessionListener implements LauncherSessionListener {

	@Override
	public void launcherSessionOpened(LauncherSession session) {
		if (BlockHoundTests.requested()) {
			TestBlockHound.install();
		}
	}

}
