/**
 * Micrometer metrics of rate limit decisions.
 */
@NullMarked
package io.github.ratelimit.spring.metrics;

import org.jspecify.annotations.NullMarked;
