/**
 * Leased permits: an instance takes a batch of a key's permits from the shared state in one atomic call and hands
 * them out locally, never admitting a permit that was not paid for in the shared state.
 */
@NullMarked
package io.github.ratelimit.core.lease;

import org.jspecify.annotations.NullMarked;
