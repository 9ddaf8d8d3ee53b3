/**
 * The rate limiter API: policies, limits, algorithms and decisions, independent of any backend.
 */
@NullMarked
package io.github.ratelimit.core;

import org.jspecify.annotations.NullMarked;
