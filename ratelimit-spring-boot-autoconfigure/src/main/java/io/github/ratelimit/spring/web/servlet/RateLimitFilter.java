package io.github.ratelimit.spring.web.servlet;

import java.io.IOException;
import java.util.List;

import io.github.ratelimit.spring.PolicyDefinition;
import io.github.ratelimit.spring.RateLimitEnforcer;
import io.github.ratelimit.spring.RateLimitOutcome;
import io.github.ratelimit.spring.RateLimitRegistry;
import io.github.ratelimit.spring.RateLimitRequest;
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
 * Applies every configured policy with {@code paths} to the requests they match. A request refused by any of them
 * is answered with 429 (503 when a fail-closed policy cannot reach its backend) and never reaches the application;
 * an admitted one carries the headers of the policy with the fewest permits left. Shadow policies never change the
 * response. A refusal is written directly, without an exception. A request whose path cannot be decoded is
 * answered 400, since no policy can be matched to it.
 */
public class RateLimitFilter extends OncePerRequestFilter {

	private static final String MALFORMED_PATH = "The request path is not a valid URI path.";

	private final RateLimitRegistry registry;

	private final RateLimitEnforcer enforcer;

	private final RateLimitHeaders headers;

	private final ProblemResponseWriter problems;

	/**
	 * Creates the filter.
	 * @param registry the policies
	 * @param enforcer the enforcer
	 * @param headers the header writer
	 * @param problems the writer of problem responses
	 */
	public RateLimitFilter(RateLimitRegistry registry, RateLimitEnforcer enforcer, RateLimitHeaders headers,
			ProblemResponseWriter problems) {
		this.registry = registry;
		this.enforcer = enforcer;
		this.headers = headers;
		this.problems = problems;
	}

	@Override
	protected boolean shouldNotFilter(HttpServletRequest request) {
		return this.registry.filterPolicies().isEmpty();
	}

	@Override
	protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws ServletException, IOException {
		PathContainer path = pathWithinApplication(request);
		if (path == null) {
			this.problems.write(ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, MALFORMED_PATH), response);
			return;
		}
		List<PolicyDefinition> policies = this.registry.filterPolicies();
		String method = request.getMethod();
		RateLimitRequest limited = null;
		RateLimitOutcome shown = null;
		for (PolicyDefinition policy : policies) {
			if (!policy.appliesTo(method, path)) {
				continue;
			}
			if (limited == null) {
				limited = new ServletRateLimitRequest(request);
			}
			RateLimitOutcome outcome = this.enforcer.enforce(policy, policy.keyOf(limited), policy.cost());
			if (outcome.refused()) {
				refuse(outcome, limited, response);
				return;
			}
			if (outcome.shown() && fewerRemaining(outcome, shown)) {
				shown = outcome;
			}
		}
		if (shown != null) {
			this.headers.write(shown, response::setHeader);
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

	private void refuse(RateLimitOutcome outcome, RateLimitRequest request, HttpServletResponse response)
			throws IOException {
		this.headers.write(outcome, response::setHeader);
		this.problems.write(outcome.refusal(request.uri()), response);
	}

	private static boolean fewerRemaining(RateLimitOutcome outcome, @Nullable RateLimitOutcome shown) {
		return shown == null || outcome.decision().remaining() < shown.decision().remaining();
	}

}
