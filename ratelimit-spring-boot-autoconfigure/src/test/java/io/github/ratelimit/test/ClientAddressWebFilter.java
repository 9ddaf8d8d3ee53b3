package io.github.ratelimit.test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

import reactor.core.publisher.Mono;

import org.springframework.core.Ordered;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;

/**
 * Gives a WebFlux request of a test the client address named in its {@value #HEADER} header, as if it had come from
 * there: the WebFlux twin of {@link Clients#from(String)}, for requests that all come from 127.0.0.1 over a real
 * connection. Ordered first, so every other filter sees that address. Test applications only.
 */
public class ClientAddressWebFilter implements WebFilter, Ordered {

	/** The header naming the address, an IP literal. */
	public static final String HEADER = "X-Test-Client-Address";

	@Override
	public int getOrder() {
		return Ordered.HIGHEST_PRECEDENCE;
	}

	@Override
	public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
		String address = exchange.getRequest().getHeaders().getFirst(HEADER);
		if (address == null) {
			return chain.filter(exchange);
		}
		InetSocketAddress remote = new InetSocketAddress(literal(address), 0);
		return chain.filter(exchange.mutate().request((request) -> request.remoteAddress(remote)).build());
	}

	/** The address of an IP literal, which {@link InetAddress#getByName(String)} parses without a lookup. */
	private static InetAddress literal(String address) {
		try {
			return InetAddress.getByName(address);
		}
		catch (UnknownHostException ex) {
			throw new IllegalArgumentException("Not an IP literal: " + address, ex);
		}
	}

}
