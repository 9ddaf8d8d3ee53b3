package io.github.ratelimit.gateway.webmvc;

import java.net.URI;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.web.servlet.function.RouterFunction;
import org.springframework.web.servlet.function.ServerResponse;

// tag::dsl-imports[]
import static io.github.ratelimit.spring.web.gateway.webmvc.RateLimitFilterFunctions.rateLimit;
import static org.springframework.cloud.gateway.server.mvc.filter.BeforeFilterFunctions.uri;
import static org.springframework.cloud.gateway.server.mvc.handler.GatewayRouterFunctions.route;
import static org.springframework.cloud.gateway.server.mvc.handler.HandlerFunctions.http;
// end::dsl-imports[]

/**
 * A WebMVC gateway: the routes of its YAML configuration ({@code gateway-webmvc.yml}) and two routes of the Java DSL,
 * one naming a policy that is not configured, all to the test's {@link Upstream} ({@code upstream.uri}).
 */
@SpringBootConfiguration
@EnableAutoConfiguration
class GatewayMvcApplication {

	// tag::dsl-route[]
	@Bean
	RouterFunction<ServerResponse> dslRoute(@Value("${upstream.uri}") URI upstream) {
		return route("dsl")
			.GET("/dsl/**", http())
			.before(uri(upstream))
			.filter(rateLimit("dsl"))
			.build();
	}
	// end::dsl-route[]

	@Bean
	RouterFunction<ServerResponse> unconfiguredRoute(@Value("${upstream.uri}") URI upstream) {
		return route("unconfigured").GET("/unconfigured/**", http())
			.before(uri(upstream))
			.filter(rateLimit("unconfigured"))
			.build();
	}

}
