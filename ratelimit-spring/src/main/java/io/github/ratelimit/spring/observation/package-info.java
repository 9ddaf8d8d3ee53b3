/**
 * Rate limit decisions as Micrometer observations: their context, documentation and conventions.
 */
@NullMarked
package io.github.ratelimit.spring.observation;

import org.jspecify.annotations.NullMarked;
