/**
 * Rate limiting for Spring applications: policies as configured, their enforcement and the exception a denial raises.
 */
@NullMarked
package io.github.ratelimit.spring;

import org.jspecify.annotations.NullMarked;
