/**
 * The samples' embedded Redis default: a Redis server process when none listens on the configured local port.
 */
@NullMarked
package io.github.ratelimit.sample.redis;

import org.jspecify.annotations.NullMarked;
