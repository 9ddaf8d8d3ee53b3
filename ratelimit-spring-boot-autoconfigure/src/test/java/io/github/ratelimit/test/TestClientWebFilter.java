package io.github.ratelimit.test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.security.Principal;

import reactor.core.publisher.Mono;

import org.springframework.core.Ordered;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;

/**
 * Gives a WebFlux request of a test the client address named in its {@value #ADDRESS} header, as if it had come from
 * there, and the user named in its {@value #USER} header as its principal: the WebFlux twin of
 * {@link Clients#from(String)} and MockMvc's {@code principal(..)}, for requests that all come from 127.0.0.1 over a
 * real connection. Ordered first, so every other filter sees them. Test applications only.
 */
public class TestClientWebFilter implements WebFilter, Ordered {

	/** The header naming the client's address, an IP literal. */
	public static final String ADDRESS = "X-Test-Client-Address";

	/** The header naming the authenticated user. */
	public static final String USER = "X-Test-User";

	@Override
	public int getOrder() {
		return Ordered.HIGHEST_PRECEDENCE;
	}

	@Override
	public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
		String address = exchange.getRequest().getHeaders().getFirst(ADDRESS);
		String user = exchange.getRequest().getHeaders().getFirst(USER);
		ServerWebExchange.Builder client = exchange.mutate();
		if (address != null) {
			InetSocketAddress remote = new InetSocketAddress(literal(address), 0);
			client.request((request) -> request.remoteAddress(remote));
		}
		if (user != null) {
			Principal principal = () -> user;
			client.principal(Mono.just(principal));
		}
		return chain.filter(client.build());
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
