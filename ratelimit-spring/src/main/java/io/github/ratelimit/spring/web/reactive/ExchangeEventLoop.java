package io.github.ratelimit.spring.web.reactive;

import java.util.concurrent.Executor;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.netty.Connection;

import org.springframework.http.server.reactive.ServerHttpRequestDecorator;
import org.springframework.util.ClassUtils;
import org.springframework.web.server.ServerWebExchange;

/**
 * Continues an exchange after each of its decisions on its connection's event loop, in a task of its own, on Reactor
 * Netty. Reactor Netty 1.3.6 and 1.3.7 stop reading a keep-alive connection for good (reactor/reactor-netty#4361,
 * fixed in 1.3.8) when a request they buffered, because it arrived before the previous exchange had ended, is
 * answered while they dispatch it: its exchange ends inside the dispatch, and no read is asked for again. An exchange
 * whose response is written from another thread ends late: the write becomes a task of the event loop, and the
 * exchange may end only in a later one, after the client has read the response and sent its next request. Hence a
 * decision never continues where it completed (Lettuce's I/O thread, the bounded elastic scheduler of a blocking
 * client, the thread of an asynchronous key or plan resolver), nor at once (the deny cache, an open circuit breaker,
 * the in-memory backend, a lease): a refusal is written, and an admitted request reaches the application, in a task
 * of its own on the event loop. On another server (or without Reactor Netty), decisions continue where they
 * complete.
 */
final class ExchangeEventLoop {

	private static final boolean NETTY_PRESENT = ClassUtils.isPresent("reactor.netty.Connection",
			ExchangeEventLoop.class.getClassLoader());

	private ExchangeEventLoop() {
	}

	/**
	 * The decision, signalled on the exchange's event loop in a task of its own, whichever thread made it and even
	 * when it was made at once, on Reactor Netty.
	 * @param <T> the decision's type
	 * @param decision the decision
	 * @param exchange the exchange
	 * @return the decision, continuing there
	 */
	static <T> Mono<T> continueOn(Mono<T> decision, ServerWebExchange exchange) {
		Executor eventLoop = NETTY_PRESENT ? Netty.eventLoop(exchange) : null;
		return (eventLoop != null) ? decision.publishOn(Schedulers.fromExecutor(eventLoop)) : decision;
	}

	/**
	 * Where an exchange's steps that waited continue: its connection's event loop on Reactor Netty, else where they
	 * complete.
	 * @param exchange the exchange
	 * @return the executor
	 */
	static Executor executor(ServerWebExchange exchange) {
		Executor eventLoop = NETTY_PRESENT ? Netty.eventLoop(exchange) : null;
		return (eventLoop != null) ? eventLoop : Runnable::run;
	}

	/** What needs Reactor Netty, loaded only with it. */
	private static final class Netty {

		/**
		 * The connection's event loop, as a plain executor: Reactor would take an executor service (which an event
		 * loop is) for its own, to shut down when the scheduler is disposed.
		 */
		static @Nullable Executor eventLoop(ServerWebExchange exchange) {
			Object nativeRequest = ServerHttpRequestDecorator.getNativeRequest(exchange.getRequest());
			return (nativeRequest instanceof Connection connection) ? connection.channel().eventLoop()::execute : null;
		}

	}

}
