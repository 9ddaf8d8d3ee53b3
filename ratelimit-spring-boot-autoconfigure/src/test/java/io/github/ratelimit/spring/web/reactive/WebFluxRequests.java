package io.github.ratelimit.spring.web.reactive;

import java.util.Map;

import io.github.ratelimit.test.TestClientWebFilter;
import io.github.ratelimit.test.ProblemBodies;
import io.github.ratelimit.test.RateLimitHeaderNames;

import org.springframework.http.HttpMethod;
import org.springframework.test.web.reactive.server.EntityExchangeResult;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.test.web.reactive.server.WebTestClient.RequestBodySpec;
import org.springframework.test.web.reactive.server.WebTestClient.RequestHeadersSpec;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Requests of one client to a {@link WebFluxTestApplication}, and what the tests check on their responses.
 */
final class WebFluxRequests {

	private final WebTestClient client;

	private final String address;

	WebFluxRequests(WebTestClient client, String address) {
		this.client = client;
		this.address = address;
	}

	/**
	 * The requests of another client.
	 */
	WebFluxRequests from(String address) {
		return new WebFluxRequests(this.client, address);
	}

	/**
	 * A request of this client.
	 */
	RequestBodySpec request(HttpMethod method, String uri) {
		return this.client.method(method).uri(uri).header(TestClientWebFilter.ADDRESS, this.address);
	}

	/**
	 * A {@code GET} of this client.
	 */
	RequestBodySpec get(String uri) {
		return request(HttpMethod.GET, uri);
	}

	/**
	 * The response to a request, its body read.
	 */
	static EntityExchangeResult<byte[]> exchange(RequestHeadersSpec<?> request) {
		return request.exchange().expectBody().returnResult();
	}

	/**
	 * The status of the response to a request.
	 */
	static int status(RequestHeadersSpec<?> request) {
		return exchange(request).getStatus().value();
	}

	/**
	 * The members of a response's problem body.
	 */
	static Map<String, Object> problem(EntityExchangeResult<byte[]> result) {
		assertThat(result.getResponseHeaders().getContentType()).hasToString("application/problem+json");
		return ProblemBodies.of(result.getResponseBody());
	}

	static void assertNoRateLimitHeaders(EntityExchangeResult<byte[]> result) {
		for (String header : RateLimitHeaderNames.ALL) {
			assertThat(result.getResponseHeaders().getFirst(header)).as(header).isNull();
		}
	}

}
