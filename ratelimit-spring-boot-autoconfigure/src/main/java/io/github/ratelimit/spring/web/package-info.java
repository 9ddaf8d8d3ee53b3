/**
 * Rate limiting of servlet requests: the filter, request keys and the HTTP responses of a decision.
 */
@NullMarked
package io.github.ratelimit.spring.web;

import org.jspecify.annotations.NullMarked;
