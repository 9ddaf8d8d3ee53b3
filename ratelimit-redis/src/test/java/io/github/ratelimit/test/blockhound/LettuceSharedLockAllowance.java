package io.github.ratelimit.test.blockhound;

import reactor.blockhound.BlockHound;
import reactor.blockhound.integration.BlockHoundIntegration;

/**
 * Lets Lettuce's {@code SharedLock} wait for its own short-held {@code ReentrantLock}: a command written on an event
 * loop (Reactor Netty's, when a decision is sent from a web filter) contends for it with Lettuce's exclusive work on
 * the same endpoint (reconnecting, closing, cancelling buffered commands) and with every other writer's brief hold
 * of it, a few field updates each. BlockHound would throw its error from inside that lock, and Lettuce's endpoint
 * does not survive an error thrown there: {@code DefaultEndpoint.write} takes one writer away in its {@code finally}
 * although none was added, the writer count goes below zero and every later writer of the connection spins or parks
 * forever (redis/lettuce#3804, #3880), before its command is sent, so no command timeout ever fires. It hung requests
 * of the WebFlux tests while Redis reconnected, and most likely the health check of the WebFlux sample that went
 * unanswered for 60 s in CI, whose module lacked this allowance then.
 * {@link LettuceWriterContention#assertEveryWriterAnswered} wedges a connection this way without it. Nothing of ours
 * is allowed to block.
 */
public class LettuceSharedLockAllowance implements BlockHoundIntegration {

	private static final String SHARED_LOCK = "io.lettuce.core.protocol.SharedLock";

	@Override
	public void applyTo(BlockHound.Builder builder) {
		builder.allowBlockingCallsInside(SHARED_LOCK, "incrementWriters")
			.allowBlockingCallsInside(SHARED_LOCK, "doExclusive")
			.allowBlockingCallsInside(SHARED_LOCK, "lockWritersExclusive");
	}

}
