package io.github.ratelimit.spring.web.servlet;

import java.io.IOException;
import java.util.List;

import io.github.ratelimit.spring.CurrentRequest;
import io.github.ratelimit.spring.PolicyDefinition;
import io.github.ratelimit.spring.RateLimitChain;
import io.github.ratelimit.spring.RateLimitEnforcer;
import io.github.ratelimit.spring.RateLimitRegistry;
import io.github.ratelimit.spring.web.FilterPolicies;
import io.github.ratelimit.spring.web.RateLimitHeaders;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.server.PathContainer;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.util.ServletRequestPathUtils;

/**
 * Applies configured policies with {@code paths} to the requests they match. A request refused by any of them
 * is answered with 429 (503 when a fail-closed policy cannot reach its backend) and never reaches the application;
 * an admitted one carries the headers of the policy with the fewest permits left. Shadow policies never change the
 * response. A refusal is written directly, without an exception. A request whose path cannot be decoded is
 * answered 400, since no policy can be matched to it. What the filter charged is kept with the request
 * ({@link io.github.ratelimit.spring.RequestRateLimits}), so {@code @RateLimited} does not charge it again.
 * <p>
 * The auto-configuration registers two filters, each with the policies of its phase: one in front of Spring
 * Security's filter chain ({@link #beforeAuthentication}) and one behind it ({@link #afterAuthentication}). They share the request's
 * record, so the second shows its own headers only when its policy binds more than the first's; a refusal by the
 * second replaces the first's headers with its own, or keeps them when it shows none (fail-closed, local fallback),
 * since a servlet response cannot portably remove a header.
 */
public class RateLimitFilter extends OncePerRequestFilter {

	private static final String MALFORMED_PATH = "The request path is not a valid URI path.";

	private final FilterPolicies policies;

	private final ServletEnforcement enforcement;

	private final ProblemResponseWriter problems;

	/**
	 * Creates the filter.
	 * @param policies the policies it applies, in order
	 * @param enforcer the enforcer
	 * @param headers the header writer
	 */
	public RateLimitFilter(List<PolicyDefinition> policies, RateLimitEnforcer enforcer, RateLimitHeaders headers) {
		this(FilterPolicies.of(policies), enforcer, headers);
	}

	/**
	 * The filter to order in front of authentication (Spring Security's filter chain), so that requests it refuses
	 * are counted too: it applies the policies with paths whose keys need no user, as the registry has them at each
	 * request, so that a configuration refresh ({@link RateLimitRegistry#reconfigure}) applies to the next request;
	 * each request is decided by one set.
	 * @param registry the policies
	 * @param enforcer the enforcer
	 * @param headers the header writer
	 * @return the filter
	 */
	public static RateLimitFilter beforeAuthentication(RateLimitRegistry registry, RateLimitEnforcer enforcer,
			RateLimitHeaders headers) {
		return new RateLimitFilter(new FilterPolicies(() -> registry.filterPolicies(false)), enforcer, headers);
	}

	/**
	 * The filter to order behind authentication: it applies the policies with paths whose key or plan resolver needs
	 * the user ({@code principal}), as {@link #beforeAuthentication} does the others.
	 * @param registry the policies
	 * @param enforcer the enforcer
	 * @param headers the header writer
	 * @return the filter
	 */
	public static RateLimitFilter afterAuthentication(RateLimitRegistry registry, RateLimitEnforcer enforcer,
			RateLimitHeaders headers) {
		return new RateLimitFilter(new FilterPolicies(() -> registry.filterPolicies(true)), enforcer, headers);
	}

	private RateLimitFilter(FilterPolicies policies, RateLimitEnforcer enforcer, RateLimitHeaders headers) {
		this.policies = policies;
		this.enforcement = new ServletEnforcement(enforcer, headers);
		this.problems = new ProblemResponseWriter();
	}

	/**
	 * The web request of the calling thread, as Spring MVC binds it ({@code RequestContextHolder}), for
	 * {@code @RateLimited} methods called while serving one.
	 * @return the current request of servlet applications
	 */
	public static CurrentRequest currentRequest() {
		return new ServletCurrentRequest();
	}

	@Override
	protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws ServletException, IOException {
		if (this.policies.isEmpty()) {
			chain.doFilter(request, response);
			return;
		}
		PathContainer path = pathWithinApplication(request);
		if (path == null) {
			this.problems.write(ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, MALFORMED_PATH), response);
			return;
		}
		List<RateLimitChain.Step> applicable = this.policies.stepsFor(request.getMethod(), path);
		if (applicable.isEmpty()) {
			chain.doFilter(request, response);
			return;
		}
		ServletEnforcement.Refusal refusal = this.enforcement.enforce(request, response, applicable);
		if (refusal != null) {
			refusal.write(response);
			return;
		}
		chain.doFilter(request, response);
	}

	/**
	 * The request's path, or {@code null} when it cannot be decoded: Tomcat lets an invalid %-escape through in a
	 * path parameter ({@code /api;%zz}), where no policy can be matched to it and Spring MVC would answer 500.
	 */
	private static @Nullable PathContainer pathWithinApplication(HttpServletRequest request) {
		try {
			return ServletRequestPathUtils.parseAndCache(request).pathWithinApplication();
		}
		catch (IllegalArgumentException ex) {
			return null;
		}
	}

}
