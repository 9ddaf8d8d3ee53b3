/**
 * Per-client overrides of a policy's limits, set by an operator at runtime.
 */
@NullMarked
package io.github.ratelimit.core.override;

import org.jspecify.annotations.NullMarked;
