package io.github.ratelimit.gateway.webflux;

import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;

/**
 * The service behind the test gateways: a Reactor Netty server on a free port that answers every request with 200
 * and {@code upstream}, started once per test JVM.
 */
final class Upstream {

	private static final DisposableServer server = HttpServer.create()
		.host("localhost")
		.port(0)
		.handle((request, response) -> response.header("Content-Type", "text/plain")
			.sendString(Mono.just("upstream")))
		.bindNow();

	private Upstream() {
	}

	/**
	 * Its address.
	 * @return {@code http://localhost:<port>}
	 */
	static String uri() {
		return "http://localhost:" + server.port();
	}

}
