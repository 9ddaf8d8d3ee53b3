/**
 * Rate limiting of Spring Cloud Gateway's WebFlux server: the {@code RateLimit} route filter, which applies policies
 * a route names through the same decisions as the WebFlux filter, and {@link PolicyRateLimiter}, the gateway's own
 * {@code RateLimiter} contract over a policy, for routes written for {@code RequestRateLimiter}. Loaded only with the
 * gateway's WebFlux server; no other package of ours refers to this one.
 */
@NullMarked
package io.github.ratelimit.spring.web.gateway.webflux;

import org.jspecify.annotations.NullMarked;
