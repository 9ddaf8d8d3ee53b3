package io.github.ratelimit.spring.web;

import java.net.URI;
import java.security.Principal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.ratelimit.spring.RateLimitRequest;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What every web adapter's translation of its request into the neutral {@link RateLimitRequest} must answer, whatever
 * the stack: the key strategies and plan resolvers read nothing else, and their cases are tested once, over the
 * neutral view ({@code RequestKeyStrategiesTests}). Each adapter extends this with how it makes its view of a request.
 */
public abstract class RateLimitRequestContract {

	/**
	 * The adapter's view of a request.
	 * @param incoming the request as it arrives
	 * @return the view the adapter hands the chain
	 */
	protected abstract RateLimitRequest request(Incoming incoming);

	/**
	 * The type of the adapter's native request, which {@code expr:} strategies are evaluated over.
	 * @return the type
	 */
	protected abstract Class<?> nativeRequestType();

	@Test
	void theMethodAndThePathAreTheRequests() {
		RateLimitRequest request = request(Incoming.of("POST", "/orders/7?tenant=acme"));
		assertThat(request.method()).isEqualTo("POST");
		assertThat(request.uri()).isEqualTo(URI.create("/orders/7"));
	}

	@Test
	void aHeaderIsItsFirstValueByAnyCaseOfItsName() {
		RateLimitRequest request = request(Incoming.of("GET", "/orders").header("X-Api-Key", "first")
			.header("X-Api-Key", "second"));
		assertThat(request.header("X-Api-Key")).isEqualTo("first");
		assertThat(request.header("x-api-key")).isEqualTo("first");
		assertThat(request.header("X-Other")).isNull();
	}

	@Test
	void aQueryParameterIsItsFirstValueDecoded() {
		RateLimitRequest request = request(Incoming.of("GET", "/orders?a=1&tenant=acme%20corp&tenant=other&empty="));
		assertThat(request.queryParameter("tenant")).isEqualTo("acme corp");
		assertThat(request.queryParameter("empty")).isEmpty();
		assertThat(request.queryParameter("missing")).isNull();
	}

	@Test
	void aQueryParameterIsReadFromTheQueryStringNeverFromAFormBodyTheApplicationMayNeed() {
		RateLimitRequest request = request(Incoming.of("POST", "/orders").form("tenant=acme"));
		assertThat(request.queryParameter("tenant")).isNull();
	}

	@Test
	void theRemoteAddressIsTheConnectionsNeverAForwardedHeader() {
		RateLimitRequest request = request(Incoming.of("GET", "/orders").from("203.0.113.7")
			.header("X-Forwarded-For", "192.0.2.1")
			.header("Forwarded", "for=192.0.2.2"));
		assertThat(request.remoteAddress()).isEqualTo("203.0.113.7");
	}

	@Test
	void thePrincipalIsTheAuthenticatedUsersOrNone() {
		assertThat(request(Incoming.of("GET", "/orders").user("alice")).principal()).extracting(Principal::getName)
			.isEqualTo("alice");
		assertThat(request(Incoming.of("GET", "/orders")).principal()).isNull();
	}

	@Test
	void theNativeRequestIsTheStacksOwn() {
		assertThat(request(Incoming.of("GET", "/orders")).nativeRequest()).isInstanceOf(nativeRequestType());
	}

	@Test
	void anAttributeIsKeptWithTheRequest() {
		RateLimitRequest request = request(Incoming.of("GET", "/orders"));
		Object first = request.attribute("ratelimit.test", Object::new);
		assertThat(request.attribute("ratelimit.test", Object::new)).isSameAs(first);
	}

	/**
	 * A request as it arrives.
	 *
	 * @param method its method
	 * @param uri its path and query
	 * @param remoteAddress the address of the connection's peer
	 * @param headers its headers, each name with its values joined in arrival order
	 * @param user the authenticated user's name, or {@code null}
	 * @param form a form body ({@code application/x-www-form-urlencoded}), or {@code null}
	 */
	public record Incoming(String method, String uri, String remoteAddress, Map<String, List<String>> headers,
			@Nullable String user, @Nullable String form) {

		static Incoming of(String method, String uri) {
			return new Incoming(method, uri, "198.51.100.1", new LinkedHashMap<>(), null, null);
		}

		Incoming header(String name, String value) {
			this.headers.computeIfAbsent(name, (key) -> new ArrayList<>()).add(value);
			return this;
		}

		Incoming from(String address) {
			return new Incoming(this.method, this.uri, address, this.headers, this.user, this.form);
		}

		Incoming user(String name) {
			return new Incoming(this.method, this.uri, this.remoteAddress, this.headers, name, this.form);
		}

		Incoming form(String body) {
			return new Incoming(this.method, this.uri, this.remoteAddress, this.headers, this.user, body);
		}

		/**
		 * The path, before any query.
		 * @return the path
		 */
		public String path() {
			int query = this.uri.indexOf('?');
			return (query < 0) ? this.uri : this.uri.substring(0, query);
		}

		/**
		 * The query, after the path.
		 * @return the query, or {@code null}
		 */
		public @Nullable String query() {
			int query = this.uri.indexOf('?');
			return (query < 0) ? null : this.uri.substring(query + 1);
		}

	}

}
