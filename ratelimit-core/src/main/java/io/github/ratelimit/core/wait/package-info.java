/**
 * Waiting for a permit: callers of one key wait in line, in arrival order, each sleeping until its next permit as the
 * backend computed it, up to a maximum wait.
 */
@NullMarked
package io.github.ratelimit.core.wait;

import org.jspecify.annotations.NullMarked;
