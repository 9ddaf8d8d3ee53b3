package io.github.ratelimit.spring.web.gateway.webmvc;

import java.util.List;

import org.springframework.cloud.gateway.server.mvc.common.MvcUtils;
import org.springframework.web.servlet.function.HandlerFilterFunction;
import org.springframework.web.servlet.function.HandlerFunction;
import org.springframework.web.servlet.function.ServerRequest;
import org.springframework.web.servlet.function.ServerResponse;

/**
 * A route's {@code RateLimit} filter: its policy names, applied by the application's {@link RouteEnforcement}, found
 * in the application context the request is served by (a filter function is made before the context is complete);
 * none there (rate limiting switched off, {@code ratelimit.enabled=false}) lets every request through.
 */
final class RouteRateLimitFilter implements HandlerFilterFunction<ServerResponse, ServerResponse> {

	private final List<String> policies;

	RouteRateLimitFilter(List<String> policies) {
		this.policies = policies;
	}

	@Override
	public ServerResponse filter(ServerRequest request, HandlerFunction<ServerResponse> next) throws Exception {
		RouteEnforcement enforcement = MvcUtils.getApplicationContext(request)
			.getBeanProvider(RouteEnforcement.class)
			.getIfAvailable();
		return (enforcement != null) ? enforcement.filter(this.policies, request, next) : next.handle(request);
	}

	@Override
	public String toString() {
		return "RateLimit" + this.policies;
	}

}
