package io.github.ratelimit.test.blockhound;

import reactor.blockhound.BlockHound;
import reactor.blockhound.integration.BlockHoundIntegration;

/**
 * Lets Lettuce's {@code SharedLock} wait for its own short-held {@code ReentrantLock}: a command written on an event
 * loop (Reactor Netty's, when a decision is sent from a web filter) contends for it with Lettuce's exclusive work on
 * the same endpoint (reconnecting, closing, cancelling buffered commands), which holds it only for a few field
 * updates. BlockHound would throw its error from inside that lock, and Lettuce's endpoint does not survive an error
 * thrown there: every later writer spins or parks forever (redis/lettuce#3804, #3880), which hung requests of these
 * tests while Redis reconnected. Nothing of ours is allowed to block.
 */
class LettuceSharedLockAllowance implements BlockHoundIntegration {

	private static final String SHARED_LOCK = "io.lettuce.core.protocol.SharedLock";

	@Override
	public void applyTo(BlockHound.Builder builder) {
		builder.allowBlockingCallsInside(SHARED_LOCK, "incrementWriters")
			.allowBlockingCallsInside(SHARED_LOCK, "doExclusive")
			.allowBlockingCallsInside(SHARED_LOCK, "lockWritersExclusive");
	}

}
