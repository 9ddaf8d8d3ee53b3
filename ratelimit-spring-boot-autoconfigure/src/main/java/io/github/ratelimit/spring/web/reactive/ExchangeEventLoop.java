package io.github.ratelimit.spring.web.reactive;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;
import reactor.netty.Connection;

import org.springframework.http.server.reactive.ServerHttpRequestDecorator;
import org.springframework.util.ClassUtils;
import org.springframework.web.server.ServerWebExchange;

/**
 * Brings what completes on another thread back to the event loop of the exchange's connection, on Reactor Netty. A
 * decision Redis answers completes on Lettuce's I/O thread; continuing the exchange there would run the application's
 * handler on the thread that serves every Redis command, and would end the exchange away from its connection's event
 * loop. Reactor Netty 1.3.6 then may read the connection's next keep-alive request before the exchange has ended,
 * buffer it, and, when it is answered at once (a refusal from the deny cache), stop reading the connection
 * (reactor/reactor-netty#4361). On another server (or without Reactor Netty), outcomes continue where they complete.
 */
final class ExchangeEventLoop {

	private static final boolean NETTY_PRESENT = ClassUtils.isPresent("reactor.netty.Connection",
			ExchangeEventLoop.class.getClassLoader());

	private ExchangeEventLoop() {
	}

	/**
	 * The stage, completing on the exchange's event loop when it is not complete yet.
	 * @param <T> the result's type
	 * @param stage the stage
	 * @param exchange the exchange
	 * @return a stage with the same result
	 */
	static <T> CompletionStage<T> continueOn(CompletionStage<T> stage, ServerWebExchange exchange) {
		CompletableFuture<T> future = stage.toCompletableFuture();
		if (future.isDone()) {
			return future;
		}
		Executor eventLoop = NETTY_PRESENT ? Netty.eventLoop(exchange) : null;
		return (eventLoop != null) ? future.thenApplyAsync(Function.identity(), eventLoop) : future;
	}

	/** What needs Reactor Netty, loaded only with it. */
	private static final class Netty {

		static @Nullable Executor eventLoop(ServerWebExchange exchange) {
			Object nativeRequest = ServerHttpRequestDecorator.getNativeRequest(exchange.getRequest());
			return (nativeRequest instanceof Connection connection) ? connection.channel().eventLoop() : null;
		}

	}

}
