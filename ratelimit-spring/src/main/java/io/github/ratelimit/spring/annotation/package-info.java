/**
 * The {@link io.github.ratelimit.spring.annotation.RateLimited @RateLimited} annotation, how it is found and the advisor
 * that enforces it.
 */
@NullMarked
package io.github.ratelimit.spring.annotation;

import org.jspecify.annotations.NullMarked;
