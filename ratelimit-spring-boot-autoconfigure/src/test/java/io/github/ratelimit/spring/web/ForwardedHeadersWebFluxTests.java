package io.github.ratelimit.spring.web;

import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.netty.transport.AddressUtils;

import org.springframework.boot.reactor.netty.NettyServerCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static io.github.ratelimit.spring.web.ForwardedHeadersServers.LIMIT;
import static io.github.ratelimit.spring.web.ForwardedHeadersServers.REQUESTS;
import static io.github.ratelimit.spring.web.ForwardedHeadersServers.admitted;
import static io.github.ratelimit.spring.web.ForwardedHeadersServers.forged;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests, on a real Reactor Netty server over raw HTTP connections, what an {@code ip} policy of a WebFlux application counts when
 * clients forge forwarding headers and the proxy in front appends the address it saw. Unlike Tomcat's, Reactor
 * Netty's {@code native} handling ({@code HttpServer.forwarded(true)}, its {@code DefaultHttpForwardedHeaderHandler})
 * trusts every connection and takes the leftmost {@code Forwarded} or {@code X-Forwarded-For} value, as
 * {@code framework} (Spring's {@code ForwardedHeaderTransformer}) does: under both, a client that writes a new address
 * each time is a new client, unless the edge proxy overwrites the headers. Without a strategy the headers are ignored;
 * a {@link NettyServerCustomizer} with a forwarded handler that trusts only the proxy counts the client it appended.
 * Every request comes from 127.0.0.1, the proxy; real clients use 203.0.113.0/24, forged addresses 198.51.100.0/24.
 */
class ForwardedHeadersWebFluxTests {

	private static final String REACTIVE = "spring.main.web-application-type=reactive";

	private static final ForwardedHeadersServers servers = new ForwardedHeadersServers();

	private static int nativeStrategy;

	private static int frameworkStrategy;

	private static int noStrategy;

	private static int trustedProxyHandler;

	@BeforeAll
	static void start() {
		nativeStrategy = servers.start(REACTIVE, "server.forward-headers-strategy=native");
		frameworkStrategy = servers.start(REACTIVE, "server.forward-headers-strategy=framework");
		noStrategy = servers.start(REACTIVE);
		trustedProxyHandler = servers.start(List.of(TrustedProxyConfiguration.class), REACTIVE);
	}

	@AfterAll
	static void stop() {
		servers.close();
	}

	@Test
	void nativeShouldCountEachForgedLeftmostForwardedForAsANewClient() {
		assertThat(admitted(nativeStrategy, (i) -> new String[] { "X-Forwarded-For", forged(i) + ", 203.0.113.1" }))
			.isEqualTo(REQUESTS);
	}

	@Test
	void nativeShouldCountEachForgedForwardedHeaderAsANewClientEvenWhenForwardedForIsOverwritten() {
		assertThat(admitted(nativeStrategy,
				(i) -> new String[] { "Forwarded", "for=" + forged(i), "X-Forwarded-For", "203.0.113.2" }))
			.isEqualTo(REQUESTS);
	}

	@Test
	void nativeBehindAnEdgeProxyThatOverwritesTheForwardingHeadersShouldCountTheClient() {
		assertThat(admitted(nativeStrategy, (i) -> new String[] { "X-Forwarded-For", "203.0.113.3" }))
			.isEqualTo(LIMIT);
	}

	@Test
	void frameworkShouldCountEachForgedLeftmostForwardedForAsANewClient() {
		assertThat(admitted(frameworkStrategy, (i) -> new String[] { "X-Forwarded-For", forged(i) + ", 203.0.113.4" }))
			.isEqualTo(REQUESTS);
	}

	@Test
	void frameworkBehindAnEdgeProxyThatOverwritesTheForwardingHeadersShouldCountTheClient() {
		assertThat(admitted(frameworkStrategy, (i) -> new String[] { "X-Forwarded-For", "203.0.113.5" }))
			.isEqualTo(LIMIT);
	}

	@Test
	void noStrategyShouldIgnoreEveryForwardingHeader() {
		assertThat(admitted(noStrategy,
				(i) -> new String[] { "Forwarded", "for=" + forged(i), "X-Forwarded-For", forged(i) }))
			.isEqualTo(LIMIT);
	}

	@Test
	void handlerThatTrustsOnlyTheProxyShouldCountTheClientItAppendedWhateverWasForged() {
		assertThat(admitted(trustedProxyHandler, (i) -> new String[] { "X-Forwarded-For", forged(i) + ", 203.0.113.6",
				"Forwarded", "for=" + forged(i) }))
			.isEqualTo(LIMIT);
	}

	/**
	 * The README's advice for Reactor Netty behind a proxy that appends to {@code X-Forwarded-For}: a forwarded
	 * handler that believes the header only on connections from the proxy (here this machine), and then only its
	 * rightmost value, the one the proxy appended.
	 */
	@Configuration(proxyBeanMethods = false)
	static class TrustedProxyConfiguration {

		@Bean
		NettyServerCustomizer trustedProxyForwardedHeaders() {
			return (server) -> server.forwarded((connection, request) -> {
				String forwardedFor = request.headers().get("X-Forwarded-For");
				if (forwardedFor == null || !connection.getRemoteAddress().getAddress().isLoopbackAddress()) {
					return connection;
				}
				String appended = forwardedFor.substring(forwardedFor.lastIndexOf(',') + 1).trim();
				return connection.withRemoteAddress(
						AddressUtils.parseAddress(appended, connection.getRemoteAddress().getPort()));
			});
		}

	}

}
