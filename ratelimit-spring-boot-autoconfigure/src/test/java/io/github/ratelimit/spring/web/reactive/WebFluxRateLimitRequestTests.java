package io.github.ratelimit.spring.web.reactive;

import java.net.InetSocketAddress;
import java.net.URI;

import io.github.ratelimit.spring.RateLimitRequest;
import io.github.ratelimit.spring.web.RateLimitRequestContract;

import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.web.server.MockServerWebExchange;

/**
 * The WebFlux adapter's translation of a request: {@link RateLimitRequestContract} over an exchange as the web filter
 * sees it (the principal resolved from the exchange before keying, for the filter behind authentication).
 */
class WebFluxRateLimitRequestTests extends RateLimitRequestContract {

	@Override
	protected RateLimitRequest request(Incoming incoming) {
		// a URI, not a template, which the mock would encode again
		MockServerHttpRequest.BodyBuilder builder = MockServerHttpRequest
			.method(HttpMethod.valueOf(incoming.method()), URI.create(incoming.uri()))
			.remoteAddress(new InetSocketAddress(incoming.remoteAddress(), 43210));
		incoming.headers().forEach((name, values) -> builder.header(name, values.toArray(String[]::new)));
		MockServerHttpRequest request = (incoming.form() != null)
				? builder.contentType(MediaType.APPLICATION_FORM_URLENCODED).body(incoming.form()) : builder.build();
		String user = incoming.user();
		return new WebFluxRateLimitRequest(MockServerWebExchange.from(request), (user != null) ? () -> user : null);
	}

	@Override
	protected Class<?> nativeRequestType() {
		return ServerHttpRequest.class;
	}

}
