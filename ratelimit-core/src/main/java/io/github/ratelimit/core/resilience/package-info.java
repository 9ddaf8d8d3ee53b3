/**
 * What keeps decisions flowing when the backend is slow or down: a circuit breaker and a cache of recent denials.
 */
@NullMarked
package io.github.ratelimit.core.resilience;

import org.jspecify.annotations.NullMarked;
