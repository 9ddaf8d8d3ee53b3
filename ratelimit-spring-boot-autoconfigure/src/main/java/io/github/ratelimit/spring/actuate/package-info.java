/**
 * Actuator support: the rate limiter health indicator and the {@code ratelimits} endpoint.
 */
@NullMarked
package io.github.ratelimit.spring.actuate;

import org.jspecify.annotations.NullMarked;
