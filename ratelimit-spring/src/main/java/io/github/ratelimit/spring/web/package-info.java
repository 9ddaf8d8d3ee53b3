/**
 * What every web stack shares: the rate limit headers of a decision and their style. Nothing here names a servlet
 * or WebFlux type.
 */
@NullMarked
package io.github.ratelimit.spring.web;

import org.jspecify.annotations.NullMarked;
