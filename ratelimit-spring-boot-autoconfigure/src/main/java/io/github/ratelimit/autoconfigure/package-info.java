/**
 * Auto-configuration of rate limiting: properties, and when each piece is switched on.
 */
@NullMarked
package io.github.ratelimit.autoconfigure;

import org.jspecify.annotations.NullMarked;
