package io.github.ratelimit.test.blockhound;

import reactor.blockhound.BlockHound;
import reactor.blockhound.BlockingOperationError;

/**
 * The one way our tests install BlockHound, in every JVM that runs reactive code under it (the {@code webflux}
 * execution of the auto-configuration's tests, the WebFlux sample's tests, the reactive classpath scenarios): the
 * integrations Reactor, Netty and Spring ship, the allowance for Lettuce's own lock
 * ({@link LettuceSharedLockAllowance}) and none for our code; a blocking call is printed with its thread and stack
 * before the error is thrown, since a library may swallow the error and leave only a request unanswered.
 */
public final class TestBlockHound {

	private TestBlockHound() {
	}

	/**
	 * Installs BlockHound for this JVM; later calls do nothing.
	 */
	public static void install() {
		BlockHound.install(new LettuceSharedLockAllowance(), (builder) -> builder.blockingMethodCallback((method) -> {
			BlockingOperationError error = new BlockingOperationError(method);
			System.err.println("BlockHound: blocking call " + method + " on " + Thread.currentThread().getName());
			error.printStackTrace();
			throw error;
		}));
	}

}
