/**
 * The in-memory backend: exact and thread-safe, for single instances, tests and local fallback.
 */
@NullMarked
package io.github.ratelimit.core.memory;

import org.jspecify.annotations.NullMarked;
