package io.github.ratelimit.sample.webflux;

import io.github.ratelimit.test.blockhound.BlockHoundSessionContract;

/**
 * Every test of this module runs with BlockHound installed
 * ({@link io.github.ratelimit.test.blockhound.BlockHoundSession}): a blocking call on a non-blocking thread fails.
 */
class BlockHoundSessionTests extends BlockHoundSessionContract {

}
