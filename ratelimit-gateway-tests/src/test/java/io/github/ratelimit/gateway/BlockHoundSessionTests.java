package io.github.ratelimit.gateway;

import io.github.ratelimit.test.blockhound.BlockHoundSessionContract;

/**
 * The WebFlux gateway's tests run with BlockHound installed
 * ({@link io.github.ratelimit.test.blockhound.BlockHoundSession}): a blocking call on a non-blocking thread fails.
 */
class BlockHoundSessionTests extends BlockHoundSessionContract {

}
