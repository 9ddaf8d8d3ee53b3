/**
 * The Redis backend: every decision is one atomic Lua script run inside Redis, on Redis' clock.
 */
@NullMarked
package io.github.ratelimit.redis;

import org.jspecify.annotations.NullMarked;
