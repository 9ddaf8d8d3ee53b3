/**
 * The {@link io.github.ratelimit.spring.annotation.RateLimited @RateLimited} annotation and its aspect.
 */
@NullMarked
package io.github.ratelimit.spring.annotation;

import org.jspecify.annotations.NullMarked;
