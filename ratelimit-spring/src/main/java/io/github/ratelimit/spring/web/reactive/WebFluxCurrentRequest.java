package io.github.ratelimit.spring.web.reactive;

import java.security.Principal;
import java.util.function.BiConsumer;

import io.github.ratelimit.spring.CurrentRequest;
import io.github.ratelimit.spring.RateLimitRequest;
import io.github.ratelimit.spring.ReactiveCurrentRequest;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;
import reactor.util.context.ContextView;

import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.filter.reactive.ServerWebExchangeContextFilter;
import org.springframework.web.server.ServerWebExchange;

/**
 * The WebFlux exchange a subscriber serves, as {@link RateLimitWebFilter} (or Spring's
 * {@link ServerWebExchangeContextFilter}) puts it in the Reactor context, with its principal resolved without
 * blocking; a call made for it continues on its connection's event loop once decided.
 */
final class WebFluxCurrentRequest implements ReactiveCurrentRequest {

	@Override
	public Mono<CurrentRequest> request(ContextView context) {
		return Mono.justOrEmpty(ServerWebExchangeContextFilter.getExchange(context))
			.flatMap((exchange) -> exchange.getPrincipal()
				.map((principal) -> current(exchange, principal))
				.defaultIfEmpty(current(exchange, null)));
	}

	/** The decision, continuing on the exchange's event loop ({@link ExchangeEventLoop}). */
	@Override
	public <T> Mono<T> continueOn(Mono<T> decision, ContextView context) {
		return ServerWebExchangeContextFilter.getExchange(context)
			.map((exchange) -> ExchangeEventLoop.continueOn(decision, exchange))
			.orElse(decision);
	}

	private static CurrentRequest current(ServerWebExchange exchange, @Nullable Principal principal) {
		return new ExchangeRequest(new WebFluxRateLimitRequest(exchange, principal), exchange);
	}

	/**
	 * One exchange: its request, and its response's headers while the response is not committed.
	 */
	private record ExchangeRequest(RateLimitRequest request, ServerWebExchange exchange) implements CurrentRequest {

		@Override
		public @Nullable BiConsumer<String, String> responseHeaders() {
			return this.exchange.getResponse().isCommitted() ? null : this::setHeader;
		}

		private void setHeader(String name, String value) {
			ServerHttpResponse response = this.exchange.getResponse();
			if (!response.isCommitted()) {
				response.getHeaders().set(name, value);
			}
		}

	}

}
