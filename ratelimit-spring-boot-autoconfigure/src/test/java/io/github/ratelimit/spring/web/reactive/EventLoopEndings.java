package io.github.ratelimit.spring.web.reactive;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.ratelimit.test.TestClientWebFilter;
import io.netty.channel.EventLoop;
import reactor.core.publisher.Mono;
import reactor.netty.Connection;

import org.springframework.core.Ordered;
import org.springframework.http.server.reactive.ServerHttpRequestDecorator;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;

/**
 * Notes, per client ({@link TestClientWebFilter#ADDRESS}), the exchanges of a Reactor Netty server that end away
 * from their connection's event loop. Reactor Netty 1.3.6 terminates such an exchange in a later task than the one
 * that sends its response, so the client's next request may be read, and buffered, before it has ended: the first
 * condition of the stall of reactor/reactor-netty#4361. Ordered first, so it sees each exchange end. Test
 * applications only.
 */
class EventLoopEndings implements WebFilter, Ordered {

	private final Map<String, List<String>> away = new ConcurrentHashMap<>();

	@Override
	public int getOrder() {
		return Ordered.HIGHEST_PRECEDENCE;
	}

	@Override
	public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
		Connection connection = (Connection) ServerHttpRequestDecorator.getNativeRequest(exchange.getRequest());
		EventLoop eventLoop = connection.channel().eventLoop();
		String client = exchange.getRequest().getHeaders().getFirst(TestClientWebFilter.ADDRESS);
		return chain.filter(exchange).doOnTerminate(() -> {
			if (client != null && !eventLoop.inEventLoop()) {
				this.away.computeIfAbsent(client, (key) -> new CopyOnWriteArrayList<>())
					.add(exchange.getRequest().getPath() + " " + exchange.getResponse().getStatusCode() + " on "
							+ Thread.currentThread().getName());
			}
		});
	}

	/**
	 * The exchanges of a client that ended away from their connection's event loop.
	 * @param client the client's address
	 * @return each exchange's path, status and the thread it ended on
	 */
	List<String> awayFromTheirEventLoop(String client) {
		return List.copyOf(this.away.getOrDefault(client, List.of()));
	}

}
