package io.github.ratelimit.redis;

import io.github.ratelimit.test.PublicApi;

/**
 * This module's {@code API.md} lists exactly its public top-level types, each saying who it is for and how stable it
 * is.
 */
class PublicApiTests extends PublicApi {

}
