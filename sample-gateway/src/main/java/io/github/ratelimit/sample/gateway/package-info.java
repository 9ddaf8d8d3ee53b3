/**
 * A sample Spring Cloud Gateway (WebFlux server) whose routes are rate limited by the starter's named policies.
 */
@NullMarked
package io.github.ratelimit.sample.gateway;

import org.jspecify.annotations.NullMarked;
