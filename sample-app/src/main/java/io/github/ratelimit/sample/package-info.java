/**
 * A sample application that uses the rate limiting starter exactly as a user would.
 */
@NullMarked
package io.github.ratelimit.sample;

import org.jspecify.annotations.NullMarked;
