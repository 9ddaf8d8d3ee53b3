package io.github.ratelimit.spring.web.gateway.webmvc;

import java.util.ArrayList;
import java.util.List;

import io.github.ratelimit.spring.PolicyDefinition;
import io.github.ratelimit.spring.RateLimitChain;
import io.github.ratelimit.spring.RateLimitEnforcer;
import io.github.ratelimit.spring.RateLimitRegistry;
import io.github.ratelimit.spring.web.FilterPolicies;
import io.github.ratelimit.spring.web.RateLimitHeaders;
import io.github.ratelimit.spring.web.servlet.ServletEnforcement;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.cloud.gateway.server.mvc.common.MvcUtils;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;
import org.springframework.web.servlet.function.HandlerFunction;
import org.springframework.web.servlet.function.ServerRequest;
import org.springframework.web.servlet.function.ServerResponse;

/**
 * Applies the policies a WebMVC gateway route names to its requests, with the servlet filter's
 * {@link ServletEnforcement}: the policies as the registry has them at each request (so that a configuration refresh
 * applies to the next one), those that limit the request's method, in the route's order. An admitted request's rate
 * limit headers go on the servlet response before the route's handler runs, as the servlet filter sets them; a
 * refused request never reaches it.
 */
public final class RouteEnforcement {

	private final RateLimitRegistry registry;

	private final ServletEnforcement enforcement;

	/**
	 * Creates the enforcement of the routes of an application.
	 * @param registry the policies
	 * @param enforcer the enforcer
	 * @param headers the header writer
	 */
	public RouteEnforcement(RateLimitRegistry registry, RateLimitEnforcer enforcer, RateLimitHeaders headers) {
		this.registry = registry;
		this.enforcement = new ServletEnforcement(enforcer, headers);
	}

	ServerResponse filter(List<String> names, ServerRequest request, HandlerFunction<ServerResponse> next)
			throws Exception {
		List<RateLimitChain.Step> steps = steps(names, request);
		if (steps.isEmpty()) {
			return next.handle(request);
		}
		ServletEnforcement.Refusal refusal = this.enforcement.enforce(request.servletRequest(), response(), steps);
		if (refusal != null) {
			return ServerResponse.status(refusal.status()).build((servletRequest, servletResponse) -> {
				refusal.write(servletResponse);
				return null;
			});
		}
		return next.handle(request);
	}

	private List<RateLimitChain.Step> steps(List<String> names, ServerRequest request) {
		String method = request.method().name();
		List<RateLimitChain.Step> steps = new ArrayList<>(names.size());
		for (String name : names) {
			PolicyDefinition policy = this.registry.isConfigured(name) ? this.registry.find(name).orElse(null) : null;
			if (policy == null) {
				throw new IllegalStateException("Gateway route '" + routeId(request) + "' names rate limit policy '"
						+ name + "', which is not configured: configure ratelimit.policies." + name
						+ " or name a configured policy in its RateLimit filter");
			}
			if (FilterPolicies.limitsMethod(policy, method)) {
				steps.add(RateLimitChain.Step.of(policy));
			}
		}
		return steps;
	}

	/**
	 * The servlet response of the request, as the {@code DispatcherServlet} that serves the route binds it.
	 */
	private static HttpServletResponse response() {
		RequestAttributes attributes = RequestContextHolder.getRequestAttributes();
		HttpServletResponse response = (attributes instanceof ServletRequestAttributes servlet) ? servlet.getResponse()
				: null;
		if (response == null) {
			throw new IllegalStateException("A RateLimit route filter runs inside the DispatcherServlet that serves "
					+ "its route, which binds the servlet response to the request's thread");
		}
		return response;
	}

	private static Object routeId(ServerRequest request) {
		return request.attribute(MvcUtils.GATEWAY_ROUTE_ID_ATTR).orElse("?");
	}

}
