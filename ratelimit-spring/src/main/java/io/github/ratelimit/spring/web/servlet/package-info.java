/**
 * The servlet adapter: the filter and the enforcement it shares with the WebMVC gateway's route filter, the servlet
 * view of a request, and the HTTP responses written from a filter or rendered by Spring MVC. Loaded only in servlet
 * applications.
 */
@NullMarked
package io.github.ratelimit.spring.web.servlet;

import org.jspecify.annotations.NullMarked;
