/**
 * Rate limiting of WebFlux applications: the web filters (before and after Spring Security's
 * {@code WebFilterChainProxy}), the request adapter over a {@code ServerWebExchange}, and the rendering of refusals.
 * Loaded only on the reactive stack.
 */
@NullMarked
package io.github.ratelimit.spring.web.reactive;

import org.jspecify.annotations.NullMarked;
