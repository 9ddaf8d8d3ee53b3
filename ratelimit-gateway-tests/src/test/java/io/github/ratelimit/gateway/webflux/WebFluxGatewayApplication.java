package io.github.ratelimit.gateway.webflux;

import io.github.ratelimit.spring.web.gateway.webflux.RateLimitGatewayFilterFactory;
import reactor.core.publisher.Mono;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.cloud.gateway.route.RouteLocator;
import org.springframework.cloud.gateway.route.builder.RouteLocatorBuilder;
import org.springframework.context.annotation.Bean;

/**
 * A Spring Cloud Gateway (WebFlux server) whose routes and policies are configured in {@code webflux-gateway.yml}
 * (loaded as {@code spring.config.name=webflux-gateway}); the code here is what YAML cannot say: the gateway's own
 * {@code KeyResolver} for the route on {@code RequestRateLimiter}, and one route of the Java DSL.
 */
@SpringBootApplication
public class WebFluxGatewayApplication {

	/** The client's API key, for {@code RequestRateLimiter}; an empty key when there is none. */
	@Bean
	KeyResolver apiKeyResolver() {
		return (exchange) -> Mono.justOrEmpty(exchange.getRequest().getHeaders().getFirst("X-Api-Key"));
	}

	// tag::dsl[]
	@Bean
	RouteLocator dslRoutes(RouteLocatorBuilder routes, RateLimitGatewayFilterFactory rateLimit,
			@Value("${upstream.uri}") String upstream) {
		return routes.routes()
			.route("dsl", (route) -> route.path("/dsl/**")
				.filters((filters) -> filters.filter(rateLimit.policies("dsl")))
				.uri(upstream))
			.build();
	}
	// end::dsl[]

}
