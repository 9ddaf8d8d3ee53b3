/**
 * A sample WebFlux application that uses the rate limiting starter exactly as a user would.
 */
@NullMarked
package io.github.ratelimit.sample.webflux;

import org.jspecify.annotations.NullMarked;
