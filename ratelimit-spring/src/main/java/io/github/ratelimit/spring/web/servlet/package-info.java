/**
 * The servlet adapter: the filter, the servlet view of a request, and the HTTP responses written from a filter or
 * rendered by Spring MVC. Loaded only in servlet applications.
 */
@NullMarked
package io.github.ratelimit.spring.web.servlet;

import org.jspecify.annotations.NullMarked;
