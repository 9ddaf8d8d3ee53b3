package io.github.ratelimit.spring.web.reactive;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.security.Principal;
import java.util.function.Supplier;

import io.github.ratelimit.spring.RateLimitRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.web.server.ServerWebExchange;

/**
 * A WebFlux exchange as rate limiting sees it. The principal is resolved before the request is built (it is a
 * {@code Mono} on WebFlux), by the filter after Spring Security's chain; before it, a request is anonymous. Query
 * parameters are WebFlux's decoded query parameters, never a form body. The root of {@code expr:} key expressions is
 * the {@link ServerHttpRequest} (for example {@code expr:headers.getFirst('X-Tenant')}).
 */
final class WebFluxRateLimitRequest implements RateLimitRequest {

	/** What the remote address is, for a request whose server does not know it. */
	static final String UNKNOWN_ADDRESS = "unknown";


	private final ServerWebExchange exchange;

	private final @Nullable Principal principal;

	/**
	 * Wraps an exchange.
	 * @param exchange the exchange
	 * @param principal the authenticated user, or {@code null} for an anonymous request (or one not yet
	 * authenticated)
	 */
	public WebFluxRateLimitRequest(ServerWebExchange exchange, @Nullable Principal principal) {
		this.exchange = exchange;
		this.principal = principal;
	}

	/**
	 * The exchange.
	 * @return the exchange
	 */
	public ServerWebExchange exchange() {
		return this.exchange;
	}

	@Override
	public String method() {
		return this.exchange.getRequest().getMethod().name();
	}

	@Override
	public @Nullable String header(String name) {
		return this.exchange.getRequest().getHeaders().getFirst(name);
	}

	@Override
	public @Nullable String queryParameter(String name) {
		return this.exchange.getRequest().getQueryParams().getFirst(name);
	}

	/**
	 * The exchange's remote address, as the server reports it (after Spring Boot's forwarded-header handling, when
	 * the application turned it on), without a name lookup.
	 */
	@Override
	public String remoteAddress() {
		InetSocketAddress remote = this.exchange.getRequest().getRemoteAddress();
		if (remote == null) {
			return UNKNOWN_ADDRESS;
		}
		InetAddress address = remote.getAddress();
		return (address != null) ? address.getHostAddress() : remote.getHostString();
	}

	@Override
	public @Nullable Principal principal() {
		return this.principal;
	}

	@Override
	public @Nullable URI uri() {
		try {
			return URI.create(this.exchange.getRequest().getPath().value());
		}
		catch (IllegalArgumentException ex) {
			return null;
		}
	}

	@Override
	public ServerHttpRequest nativeRequest() {
		return this.exchange.getRequest();
	}

	@Override
	@SuppressWarnings("unchecked")
	public <T> T attribute(String name, Supplier<T> ifAbsent) {
		return (T) this.exchange.getAttributes().computeIfAbsent(name, (key) -> ifAbsent.get());
	}

}
