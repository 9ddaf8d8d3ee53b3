/**
 * The adapter of Spring Cloud Gateway's WebMVC server ({@code spring-cloud-gateway-server-webmvc}): the
 * {@code RateLimit} filter function of its routes, Java route DSL and YAML route filters alike, applying named policies
 * through the servlet adapter's enforcement. Loaded only in applications with that server.
 */
@NullMarked
package io.github.ratelimit.spring.web.gateway.webmvc;

import org.jspecify.annotations.NullMarked;
